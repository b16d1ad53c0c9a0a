"""``install torch``: plan, resolve, the target interpreter session, the install transaction, verify."""
