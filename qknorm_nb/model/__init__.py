"The network: attention with the QK-norm variants, the nanoGPT model, its probes."
