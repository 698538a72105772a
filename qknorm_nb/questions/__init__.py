"The study's questions, each under its rule: confirmation, criteria, mechanism, target, cliff, shift."
