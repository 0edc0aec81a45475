from tower.cli import main

raise SystemExit(main())
