"""Information sets: one protocol and its kinds, the backends, observations and queries."""
