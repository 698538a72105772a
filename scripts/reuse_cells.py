"""Copy into a study's folder the finished cells of another study whose configuration is identical.

    python scripts/reuse_cells.py studies/depth-confirm.yaml runs/cpu-tinystories [--runs-dir runs]

A cell is copied only when the source holds a finished cell (done or diverged) of the same id whose
config.json equals the new cell's config in every field but the runtime ones (threads, device, ...).
Checkpoints are not copied. The copies are listed in <study folder>/reused.json with their source, so
the study's page can say which cells it did not run itself. Nothing is overwritten; a bad argument or
a damaged file ends with one line on stderr (exit status 2) before anything is copied.
"""
import argparse, shutil, sys
from pathlib import Path
from qknorm_nb.config import ConfigError, RUNTIME_FIELDS
from qknorm_nb.files import COMPLETE, FileError, load_json, now, read_json, write_json
from qknorm_nb.study import load_study, read_summary

def same_config(a: dict, b: dict) -> list:
    "The fields (runtime ones aside) in which two configs differ."
    return sorted(k for k in set(a) | set(b) if k not in RUNTIME_FIELDS and a.get(k) != b.get(k))

def check_folders(src: Path, dst: Path):
    "Refuse (ConfigError, one line) a source that is not a study folder, or a destination that is a ladder's folder or not a folder."
    # A ladder's folder holds rungs one level down: cells copied there would be in no study and mixed with the ladder's record.
    for what, d, fix in (('source', src, "give a study folder, e.g. runs/<ladder>/<rung>"), ('destination', dst, "name the study otherwise")):
        if (d/'ladder.json').exists(): raise ConfigError(f"{what}={str(d)!r} is a ladder's folder (it holds ladder.json), not a study folder: {fix}")
    if not (src/'study.json').is_file():
        raise ConfigError(f"source={str(src)!r} is not a study folder (no study.json there): give a folder a sweep ran, e.g. runs/cpu-tinystories")
    if dst.exists() and not dst.is_dir(): raise ConfigError(f"destination={str(dst)!r} is a file, not a study folder")

def reuse(study_file, source, runs_dir='runs') -> str:
    "Copy the matching finished cells of `source` into the study's folder; a line saying what was done."
    st, src = load_study(study_file), Path(source)
    dst = Path(runs_dir)/st.name
    check_folders(src, dst)
    reused = read_json(dst/'reused.json') if (dst/'reused.json').exists() else {}  # a damaged one: FileError, nothing copied
    n = 0
    for c in st.cells:
        s, d = src/c.id, dst/c.id
        if d.exists() or (read_summary(s) or {}).get('status') not in COMPLETE: continue
        cfg = load_json(s/'config.json')  # missing or damaged: not a cell to reuse
        if not isinstance(cfg, dict) or same_config(cfg, c.config.to_dict()): continue
        d.mkdir(parents=True)
        for f in s.iterdir():
            if f.is_file() and f.suffix != '.pt': shutil.copy2(f, d/f.name)
        reused[c.id] = dict(source=str(src/c.id), copied=now())
        n += 1
    if n: write_json(dst/'reused.json', reused)
    return f"{n} cells copied from {src} into {dst}; {len(reused)} reused in all, {len(st.cells) - len(reused)} to run"

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog='reuse_cells.py', description=__doc__.splitlines()[0])
    ap.add_argument('study', help="the study file (or preset) whose folder receives the cells")
    ap.add_argument('source', help="the study folder to copy finished cells from, e.g. runs/cpu-tinystories")
    ap.add_argument('--runs-dir', default='runs', help="folder holding the study's folder (default: runs)")
    a = ap.parse_args(argv)
    try: print(reuse(a.study, a.source, a.runs_dir)); return 0
    except (ConfigError, FileError, OSError) as e:
        print(f"reuse_cells: error: {e}", file=sys.stderr); return 2

if __name__ == '__main__': sys.exit(main())
