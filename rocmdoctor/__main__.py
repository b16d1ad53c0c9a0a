"""``python -m rocmdoctor``."""

import sys

from rocmdoctor.entry import main

sys.exit(main())
