"""Evaluation and analysis: every secret played, transcripts, design metrics, tournaments."""
