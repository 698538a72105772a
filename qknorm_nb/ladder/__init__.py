"Scale ladders: rungs, their predictions, the full-scale check."
