"""``install torch``: pick the ROCm wheels that fit a host, install them into an interpreter, verify, or restore.

Modules, in the order a run uses them (each imports only those above it, and nothing from ``cli/``):

* :mod:`.plan` the plan (pins, index, env) and its JSON; :mod:`.refusal` why nothing fits; :mod:`.resolve`
  host + matrix -> plan (pure);
* :mod:`.target` what the target interpreter is; :mod:`.session` asks it (``programs/target_session.py``) and
  keeps it to run pip; :mod:`.host` the host to plan for (a bundle, or this machine);
* :mod:`.lock` one install per environment, the journal; :mod:`.snapshot` back up and restore site-packages;
* :mod:`.runner` the pip/uv command; :mod:`.index` what an index publishes (sha256); :mod:`.verify` the result
  is the ROCm build meant, from where meant; :mod:`.hashlock` the ``--require-hashes`` lock;
* :mod:`.installer` the transaction (snapshot, run, verify, restore); :mod:`.flow` the command, with output.
"""
