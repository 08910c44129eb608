"""Running a command-line entry point in-process, as the tests of the CLIs do."""


def runner(main):
    """``run(capsys, *args) -> (exit code, stdout, stderr)`` for ``main``."""

    def run(capsys, *args):
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run
