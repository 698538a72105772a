"""Copy into a study's folder the finished cells of another study whose configuration is identical.

    python scripts/reuse_cells.py studies/depth-confirm.yaml runs/cpu-tinystories

A cell is copied only when the source holds a finished cell (done or diverged) of the same id whose
config.json equals the new cell's config in every field but the runtime ones (threads, device, ...).
Checkpoints are not copied. The copies are listed in <study folder>/reused.json with their source, so
the study's page can say which cells it did not run itself. Nothing is overwritten.
"""
import json, shutil, sys
from pathlib import Path
from qknorm_nb.config import RUNTIME_FIELDS
from qknorm_nb.study import load_study, read_summary, COMPLETE
from qknorm_nb.files import write_json, now

def same_config(a: dict, b: dict) -> list:
    "The fields (runtime ones aside) in which two configs differ."
    return sorted(k for k in set(a) | set(b) if k not in RUNTIME_FIELDS and a.get(k) != b.get(k))

def main(study_file, source, runs_dir='runs'):
    st, src = load_study(study_file), Path(source)
    dst = Path(runs_dir)/st.name
    reused = json.loads((dst/'reused.json').read_text()) if (dst/'reused.json').exists() else {}
    n = 0
    for c in st.cells:
        s, d = src/c.id, dst/c.id
        if d.exists() or not (s/'config.json').is_file(): continue
        if (read_summary(s) or {}).get('status') not in COMPLETE: continue
        if same_config(json.loads((s/'config.json').read_text()), c.config.to_dict()): continue
        d.mkdir(parents=True)
        for f in s.iterdir():
            if f.is_file() and f.suffix != '.pt': shutil.copy2(f, d/f.name)
        reused[c.id] = dict(source=str(src/c.id), copied=now())
        n += 1
    write_json(dst/'reused.json', reused)
    print(f"{n} cells copied from {src} into {dst}; {len(reused)} reused in all, {len(st.cells) - len(reused)} to run")

if __name__ == '__main__': main(*sys.argv[1:])
