"Running a study: study files, locks, kernels, sweeps, progress."
