"""Code shared by the course's GPU labs (the notebooks in ``labs/``).

- :mod:`labkit.gpt`: a GPT-2-style model whose layers keep exactly the activations that
  Korthikanti et al. 2022 count (Megatron layout ``[s, b, h]``, 1-byte dropout masks).
- :mod:`labkit.mixed_adam`: mixed-precision Adam whose five 16Ψ parts are real tensors.
- :mod:`labkit.counting`: tensor bytes counted part by part (model states, saved activations).
- :mod:`labkit.device`: which device a lab runs on, and the clear stop when CUDA is missing.
- :mod:`labkit.report`: the predicted-vs-measured table, the JSON file and the plot.
- :mod:`labkit.dist_states`: the ``torchrun`` worker for the DDP and FSDP measurements.

Every prediction comes from ``grader.memory`` (the course's one memory model).
"""
