"""Copy into a study's folder the finished cells of another study whose configuration and data are identical.

    python scripts/reuse_cells.py studies/depth-confirm.yaml runs/cpu-tinystories [--runs-dir runs]

A cell is copied only when the source holds a finished cell (done or diverged, with a summary a run writes) of the
same id whose config.json equals the new cell's config in every field but the runtime ones (threads, device, ...),
and when every data file its runs read has the sha256 the source's study.json records. Checkpoints are not copied.
Each copy carries its provenance in its own folder (copied-from.json: the source cell, the time, the data files'
sha256), and <study folder>/reused.json lists the copies, so the study's page can say which cells it did not run.

All or nothing: the cells are copied into a temporary folder beside the destination, then moved into place, and
reused.json is written atomically; on any error (a full disk) what was staged is removed and the destination is
left as it was. Before anything is copied, the destination is checked as the sweep checks it (another study's
study.json, a cell run with other settings, a damaged record, a changed data file) and reused.json must be the
mapping this script writes. Nothing is overwritten. A bad argument or a damaged file ends with one line on stderr
and exit status 2, a full disk with one line and exit status 1.
"""
import argparse, errno, json, os, shutil, socket, sys
from pathlib import Path
from qknorm_nb.config import ConfigError, RUNTIME_FIELDS
from qknorm_nb.files import COMPLETE, FileError, fault_point, load_json, now, pid_alive, read_json, sha256, write_json
from qknorm_nb.study.spec import SweepError, load_study
from qknorm_nb.study.folder import cell_status, check_study_folder, summary_problem
from qknorm_nb.study.sweep import data_files

PROVENANCE = 'copied-from.json'  # in each copied cell folder: where it came from, travelling with the cell

class CopyError(Exception):
    "Copying failed (a full disk): nothing was copied, the destination is as it was; the message says so in one line."

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

def read_reused(p: Path) -> dict:
    "The copies listed in reused.json `p` ({} when there is none); a `FileError` naming the file, the key and the value when it is not the mapping this script writes."
    if not p.exists(): return {}
    r = read_json(p)  # torn or empty: a FileError naming it
    fix = "move it aside and run the same command again (each copy's own copied-from.json lists it again)"
    if not isinstance(r, dict): raise FileError(p, f"holds {json.dumps(r)[:40]}, not a mapping of cell ids to their sources: {fix}")
    for cid, e in r.items():
        if not (isinstance(e, dict) and isinstance(e.get('source'), str)):
            raise FileError(p, f"is {json.dumps(e)[:40]}, not a copy's record (a mapping with its source): {fix}", cid)
    return r

def check_data(src: Path, st, cells: list, hashes: dict) -> dict:
    "The sha256 of each data file the `cells` read, once the source's study.json records the same for each; else a ConfigError naming the file and both hashes."
    spec, sj = read_json(src/'study.json'), src/'study.json'
    if not isinstance(spec, dict): raise FileError(sj, f"holds {json.dumps(spec)[:40]}, not a study's record (a JSON object)")
    recorded = spec.get('data_files') if isinstance(spec.get('data_files'), dict) else {}
    used = set(st.data_files) | {v for c in cells for v in (c.config.dataset, c.config.val_dataset) if v in hashes}
    for p in sorted(used):
        if recorded.get(p) is None:
            raise ConfigError(f"{sj} records no sha256 for data file {p!r}: whether the source's cells were trained on its text "
                              "cannot be told; nothing was copied (run those cells here)")
        if recorded[p] != hashes[p]:
            raise ConfigError(f"data file {p!r} changed since the source's cells ran: {sj} records sha256 {recorded[p]}, the file "
                              f"now has sha256 {hashes[p]}; nothing was copied (run those cells here)")
    return {p: hashes[p] for p in sorted(used)}

def _stage_dir(dst: Path, pid=None) -> Path:
    return dst.parent/f".{dst.name}.reuse.{socket.gethostname()}.{pid or os.getpid()}.tmp"

def remove_stale_stages(dst: Path):
    "Remove the staging folders of copies into `dst` that were killed (this host, their pid gone): they were never part of it."
    prefix = _stage_dir(dst, 'PID').name.split('PID')[0]
    for p in dst.parent.glob(f"{prefix}*.tmp") if dst.parent.is_dir() else []:
        pid = p.name[len(prefix):-len('.tmp')]
        if pid.isdigit() and not pid_alive(int(pid)): shutil.rmtree(p, ignore_errors=True)

def copy_all(cells: list, src: Path, dst: Path, reused: dict, provenance: dict):
    "Copy the `cells` of `src` into `dst` all or nothing: staged beside `dst`, moved into place, then reused.json written atomically."
    stage, moved, current = _stage_dir(dst), [], None
    try:
        stage.mkdir(parents=True)
        for c in cells:
            (stage/c.id).mkdir()
            for f in sorted((src/c.id).iterdir()):
                if f.is_file() and f.suffix != '.pt':
                    current = f
                    fault_point(f"copy:{f.name}")  # the crash tests' hook: a disk that fills here
                    shutil.copy2(f, stage/c.id/f.name)
            write_json(stage/c.id/PROVENANCE, provenance[c.id])
        current, listed = None, reused | provenance
        if not dst.exists():  # a new study folder: all of it in one rename
            write_json(stage/'reused.json', listed)
            os.rename(stage, dst); return
        for c in cells:
            if (dst/c.id).exists(): raise ConfigError(f"{dst/c.id} appeared while the cells were copied (a sweep of the study is running?): "
                                                      "nothing was copied; run the same command again once it is done")
            os.rename(stage/c.id, dst/c.id); moved.append(c.id)
        write_json(dst/'reused.json', listed)
    except BaseException as e:
        for cid in reversed(moved): os.rename(dst/cid, stage/cid)  # put back: the destination is as it was
        shutil.rmtree(stage, ignore_errors=True)
        if isinstance(e, OSError):
            what = 'the disk is full' if e.errno == errno.ENOSPC else f"{e.strerror or e} ({e.filename})"
            where = f"copying {current}" if current else f"moving the copies into {dst}"
            raise CopyError(f"{what} while {where}: nothing was copied, {dst} is as it was"
                            + ("; free space and run the same command again" if e.errno == errno.ENOSPC else '')) from None
        raise
    shutil.rmtree(stage, ignore_errors=True)

def reuse(study_file, source, runs_dir='runs') -> str:
    "Copy the matching finished cells of `source` into the study's folder; a line saying what was done."
    st, src = load_study(study_file), Path(source)
    dst = Path(runs_dir)/st.name
    check_folders(src, dst)
    reused = read_reused(dst/'reused.json')  # damaged or of another shape: refused, nothing copied
    hashes = {p: sha256(p) for p in data_files(st)}
    check_study_folder(dst, st, hashes)  # as the next sweep checks it: another study's folder, other runs, a damaged record, changed data
    remove_stale_stages(dst)
    found = {f.parent.name: load_json(f) for f in sorted(dst.glob(f'*/{PROVENANCE}')) if f.parent.name not in reused}  # copies an interrupted
    found = {cid: p for cid, p in found.items() if isinstance(p, dict) and isinstance(p.get('source'), str)}           # run moved, unlisted
    cells, damaged = [], []
    for c in st.cells:
        s = src/c.id
        if (dst/c.id).exists() or not s.is_dir(): continue
        state = cell_status(s)  # a summary no run writes is 'damaged', never a result to copy
        if state == 'damaged': damaged.append(f"{c.id} ({summary_problem(s)})"); continue
        cfg = load_json(s/'config.json')  # missing or damaged: not a cell to reuse
        if state in COMPLETE and isinstance(cfg, dict) and not same_config(cfg, c.config.to_dict()): cells.append(c)
    data = check_data(src, st, cells, hashes) if cells else {}
    stamp = now()
    provenance = {c.id: dict(source=str(src/c.id), copied=stamp, data_files={p: h for p, h in data.items()
                  if p in st.data_files or p in (c.config.dataset, c.config.val_dataset)}) for c in cells}
    if cells: copy_all(cells, src, dst, reused | found, provenance)
    elif found: write_json(dst/'reused.json', reused | found)
    n_all = len(reused) + len(found) + len(cells)
    line = f"{len(cells)} cells copied from {src} into {dst}; {n_all} reused in all, {len(st.cells) - n_all} to run"
    if found: line += f"; {len(found)} earlier copies listed in reused.json again (an interrupted run had not listed them)"
    if damaged: line += f"; left out {len(damaged)} source cells whose summary is damaged: {'; '.join(damaged)}"
    return line

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog='reuse_cells.py', description=__doc__.splitlines()[0])
    ap.add_argument('study', help="the study file (or preset) whose folder receives the cells")
    ap.add_argument('source', help="the study folder to copy finished cells from, e.g. runs/cpu-tinystories")
    ap.add_argument('--runs-dir', default='runs', help="folder holding the study's folder (default: runs)")
    a = ap.parse_args(argv)
    try: print(reuse(a.study, a.source, a.runs_dir)); return 0
    except (ConfigError, FileError, SweepError) as e: msg, code = str(e), 2
    except (CopyError, OSError) as e: msg, code = str(e), 1
    print(f"reuse_cells: error: {msg}", file=sys.stderr); return code

if __name__ == '__main__': sys.exit(main())
