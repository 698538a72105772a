"""Test fixtures: helpers that only the notebooks' tests use, kept out of the `qknorm_nb` package.

Several notebooks' tests need the same few helpers: waiting for a stopped process to exit, loading an old
`config.json`, writing a small notebook for papermill to run. They are not part of the library (no library code calls
them), so they live here, beside the notebooks, and not in an exported cell: `nbdev-export` writes modules from
notebooks only, so this file never becomes part of the package, and nothing in `qknorm_nb` imports it.

nbdev runs each notebook with `nbs/` as its working directory and on `sys.path` (`nbdev-test`, and the docs processing
of `qknorm_nb.tools.docs`), so a test cell imports them with `from fixtures import ...`.
"""
from __future__ import annotations
import time
from pathlib import Path
from qknorm_nb.config import REMOVED_FIELDS, RunConfig, make_config
from qknorm_nb.files import pid_alive

__all__ = ['wait_gone', 'saved_config', 'script_notebook', 'write_standin_notebook']


def wait_gone(pids, timeout: float = 120.0) -> bool:
    "Whether every pid in `pids` has exited, polling until `timeout` seconds: a process being killed takes its time on a busy machine."
    end = time.monotonic() + timeout
    while any(pid_alive(p) for p in pids):
        if time.monotonic() > end: return False
        time.sleep(0.1)
    return True


def saved_config(d: dict) -> RunConfig:
    "The `RunConfig` of a run folder's `config.json`, also one written before a field was removed (`REMOVED_FIELDS`)."
    return make_config(None, **{k: v for k, v in d.items() if k not in REMOVED_FIELDS})


def _notebook(path, params: str, code: str) -> Path:
    "Write a notebook of a parameters cell `params` and one code cell `code`."
    import nbformat
    p = nbformat.v4.new_code_cell(params); p.metadata['tags'] = ['parameters']
    nb = nbformat.v4.new_notebook(cells=[p, nbformat.v4.new_code_cell(code)])
    nb.metadata['kernelspec'] = dict(name='python3', display_name='python3', language='python')
    nbformat.write(nb, str(path))
    return Path(path)


def script_notebook(path, # where to write the .ipynb
                    code: str, # the one code cell after the (empty) parameters cell
                   ) -> Path:
    "A notebook made of an empty parameters cell and `code`: enough for papermill to inject parameters."
    return _notebook(path, '', code)


# The stand-in training notebook's code: the real notebook's contract (nbs/10_train.ipynb) in a few lines, faking
# training in a fraction of a second. Its three blanks: the file each run logs its start to, the seconds it takes,
# and code run before the summary is written (a crash).
_STANDIN = '''\
import json, os, time
from dataclasses import fields
from pathlib import Path
from qknorm_nb.config import RunConfig, make_config
cfg = make_config(preset, **{{f.name: globals()[f.name] for f in fields(RunConfig)}})
out = Path(out_dir); out.mkdir(parents=True, exist_ok=True)
log = {log!r}
if log:
    with open(log, 'a') as f: f.write(f"{{out.name}} {{os.getpid()}} {{time.time()}}\\n")
(out/'config.json').write_text(json.dumps(cfg.to_dict()))
time.sleep({sleep!r})
{fail}
status = 'diverged' if cfg.lr >= 1 else 'done'
loss = 5.55 if status == 'diverged' else 2.0 + 10 * abs(cfg.lr - 0.05) + 0.01 * cfg.seed
summary = dict(status=status, l0=5.55, final_val_loss=loss, best_val_loss=min(loss, 5.0),
               diverged_step=10 if status == 'diverged' else None, max_logit=100 * cfg.lr, max_train_loss=loss + 1,
               steps_to_target={{str(t): (20 if loss < t else None) for t in cfg.loss_targets}}, wall_time=0.1,
               tokens_per_s=1000.0, n_params=12345, versions={{}},
               env=dict(cuda_visible_devices=os.environ.get('CUDA_VISIBLE_DEVICES'), cwd=os.getcwd(), threads=cfg.threads))
(out/'summary.json').write_text(json.dumps(summary))
'''


def write_standin_notebook(path, # where to write the .ipynb
                           fail: str = '', # code run before the summary is written, e.g. "raise RuntimeError('boom')"
                           log: str = '', # file to which each run appends "<cell> <pid> <time>"
                           sleep: float = 0.0, # seconds each run takes
                          ) -> Path:
    "Write a stand-in training notebook (same parameters contract) that writes a fake summary.json at once."
    params = "preset = 'cpu'\nout_dir = ''\n" + '\n'.join(f"{k} = {v!r}" for k, v in RunConfig().to_dict().items())
    return _notebook(path, params, _STANDIN.format(log=str(log), sleep=sleep, fail=fail))
