from .cli import main

if __name__ == "__main__":  # not when a worker process (checker.lsp) imports the parent's main module
    raise SystemExit(main())
