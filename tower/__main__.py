from tower.app.cli import main

raise SystemExit(main())
