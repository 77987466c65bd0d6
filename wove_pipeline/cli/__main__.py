"""`python -m wove_pipeline.cli`: the `wove` command."""

import sys

from wove_pipeline.cli import main

sys.exit(main())
