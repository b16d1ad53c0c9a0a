"""``python -m rocmdoctor``."""

import sys

from rocmdoctor.cli.entry import main

sys.exit(main())
