"""infoset"""
