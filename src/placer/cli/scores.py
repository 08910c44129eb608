"""placement-manage scores rebuild | drop: the trees' stored scores that the
spread and pack candidate orders walk (Placer's own; db/scores.py).

``rebuild`` recomputes every tree's scores from the inventories and
allocations, in one transaction: after writes Placer did not make (the
reference's, after a roll-back and forward again; rows written with SQL),
which placement-status reports. ``drop`` removes Placer's own tables and
their migration history, leaving exactly the reference's schema (stop
Placer first: its writes keep the tables); ``db sync`` creates and fills
them again. Exit 0 when done, 1 with the reason otherwise.
"""

from placer.db import engine as db_engine
from placer.db import scores

MISSING = ("The score tables are missing (dropped, or the database was never synced by "
           "Placer): run 'placement-manage db sync'.")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "scores", help="The trees' scores of the spread and pack candidate orders.",
        description="The trees' scores of the spread and pack candidate orders.")
    parser.set_defaults(func=lambda conf: parser.print_help())
    actions = parser.add_subparsers(description="score commands")
    rebuild_parser = actions.add_parser(
        "rebuild", help="Recompute every tree's scores.",
        description="Recompute every tree's scores from its inventories and allocations.")
    rebuild_parser.set_defaults(func=rebuild)
    drop_parser = actions.add_parser(
        "drop", help="Remove Placer's score tables.",
        description="Remove Placer's score tables and their migration history, leaving "
                    "the reference's schema; 'db sync' creates them again.")
    drop_parser.set_defaults(func=drop)


def rebuild(conf) -> int:
    db = db_engine.Database(db_engine.engine_for(conf))
    try:
        if not db.read(scores.present):
            print(MISSING)
            return 1
        trees = db.write(scores.rebuild)
    finally:
        db.dispose()
    print(f"Rebuilt the scores of {trees} trees.")
    return 0


def drop(conf) -> int:
    engine = db_engine.engine_for(conf)
    try:
        with engine.begin() as conn:
            scores.drop(conn)
    finally:
        engine.dispose()
    print("Dropped Placer's score tables and placer_alembic_version; the reference's "
          "schema is unchanged.")
    return 0
