"""``python -m rocmdoctor``."""

import sys

from rocmdoctor.cli import main

sys.exit(main())
