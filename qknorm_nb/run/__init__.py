"One training run: devices, tracking, the run state, the loop."
