// The lab page's physics overlays: the server draws them into the scene (viewer/overlays.py) when asked.
import { call, errorText, el, item } from './api.js';

// `lab`: what the page gives the overlays: {page, api(path), say(text), draw()}
let lab = null;
export function overlays(given) {
  lab = given;
  el('show-forces').addEventListener('change', explain);
  el('show-removal').addEventListener('change', explain);
  return { explain, pushAt };
}
// The weakest tilt direction comes with every answer; the forces, the removal map and a push on a clicked face are
// asked for once per build (GET /api/lab/ID/overlays) and drawn from the scene that comes back.
export async function explain() {
  const st = lab.page.state;
  if (!st) return;
  document.body.dataset.overlays = '';   // what the scene shows of the overlays: set once their answer is drawn
  const show = [];
  if (el('show-forces').checked) show.push('forces');
  if (el('show-removal').checked) show.push('removal');
  const asked = lab.page.edits;    // the answers received so far: an edit answered meanwhile makes this one stale
  const push = lab.page.push && lab.page.push.edits === asked ? lab.page.push.text : '';
  if (!show.length && !push) {
    const had = lab.page.overlay && lab.page.overlay.edits === asked;   // drawn with overlays that are now off
    lab.page.overlay = null;
    legend([]);
    if (had) lab.draw();
    return;
  }
  const q = new URLSearchParams({ show: show.join(','), push });
  working(1, show, push);
  const watching = show.includes('removal') ? watchRemoval(asked) : null;
  let answer;
  try {
    answer = await call('GET', lab.api(`/overlays?${q}`));
    // another lab job of this address is being worked out (the server runs one at a time): ask again, as long
    // as the build is still the one asked about
    for (let tries = 0; answer.status === 429 && answer.data.rule === 'lab-busy' && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (lab.page.edits !== asked) return;
      answer = await call('GET', lab.api(`/overlays?${q}`));
    }
  } finally {
    if (watching) watching.stop();
    working(-1);
  }
  if (!answer.ok && watching && answer.status === 413 && answer.data.rule === 'lab-cpu-seconds'
      && /removal map/.test(answer.data.error)) {
    // over the CPU budget: the blocks found are kept on screen, the words say which limit stopped the map and
    // how to raise it, and the box is unticked (ticking it again would only be refused again)
    const p = await progress();
    if (p) partial(p, asked);
    el('show-removal').checked = false;
    legend([errorText(answer)]);
    document.body.dataset.removalStopped = p ? String(p.done) : '0';
    lab.say(errorText(answer));
    return;
  }
  if (!answer.ok) { lab.say(errorText(answer)); return; }
  if (lab.page.edits !== asked) return;  // an edit came meanwhile: its own request asks again
  lab.page.overlay = { edits: asked, scene: answer.data.scene };
  legend(answer.data.words);
  document.body.dataset.overlays = [...show, push ? 'push' : ''].filter(Boolean).join(',');
  lab.draw();
}

// The removal map of a large build takes a while (one statics judgement per block): while its request is on its
// way the page asks how far it is (GET /api/lab/ID/removal/progress), says so ("removal map: 37 of 95 blocks") and
// tints the blocks found so far.
const PROGRESS_MS = 400;
function watchRemoval(asked) {
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    const p = await progress();
    if (stopped) return;
    if (p) partial(p, asked);
    setTimeout(tick, PROGRESS_MS);
  };
  setTimeout(tick, PROGRESS_MS / 2);
  return { stop: () => { stopped = true; } };
}

async function progress() {
  const answer = await call('GET', lab.api('/removal/progress'));
  return answer.ok ? answer.data : null;
}

// the blocks found so far tinted by class, over the build's own scene (the whole map's answer replaces it)
function partial(p, asked) {
  const st = lab.page.state;
  if (lab.page.edits !== asked || !st || p.edits !== st.edits || !['working', 'done', 'stopped'].includes(p.state)) return;
  el('working').textContent = `removal map: ${p.done} of ${p.total} blocks`;
  document.body.dataset.removalDone = String(p.done);
  const scene = structuredClone(st.scene);
  const found = new Map(p.blocks.map((b) => [b.block, b.class]));
  for (const b of scene.blocks) if (found.has(b.id)) b.tint = found.get(b.id);
  Object.assign(scene.palette, p.palette);
  lab.page.overlay = { edits: asked, scene, partial: true };
  lab.draw();
}

// The forces and the removal map take seconds on a large build (one statics solve per block for the map): until
// the answer comes the page says it is working and the toggles wait (a second click would only ask again).
let overlayJobs = 0;
function working(delta, show = [], push = '') {
  overlayJobs = Math.max(0, overlayJobs + delta);
  const names = { forces: 'the contact forces', removal: 'the removal map' };
  const what = [...show.map((s) => names[s]), ...(push ? ['the push test'] : [])];
  if (delta > 0) el('working').textContent = `working out ${what.join(' and ')}…`;
  el('working').hidden = overlayJobs === 0;
  for (const id of ['show-forces', 'show-removal']) el(id).disabled = overlayJobs > 0 || lab.page.failed;
  document.body.dataset.working = overlayJobs > 0 ? 'true' : 'false';
}

// the words of the overlays and what their colours mean (the scene's legend), for people and screen readers
function legend(words) {
  // without overlays, the build's own scene: a falling build's motion has a legend of its own
  const scene = lab.page.overlay ? lab.page.overlay.scene : (lab.page.state && lab.page.state.scene);
  const items = words.map((w) => {
    const li = item('li', w.trim());
    // the words are indented by two spaces a level (a heading, its lines, theirs): keep that as nesting
    const depth = Math.floor((w.length - w.trimStart().length) / 2);
    li.className = `depth-${Math.min(depth, 3)}`;
    return li;
  });
  for (const e of scene ? scene.legend : []) {
    const li = item('li', e.text, 'legend');
    const swatch = item('span', '', 'swatch');
    const c = scene.palette[e.colour] || [128, 128, 128];
    swatch.style.background = `rgb(${c.join(',')})`;
    li.prepend(swatch);
    items.push(li);
  }
  el('explain').replaceChildren(...items);
}

export async function pushAt(hit) {
  // the hand moves into the face clicked: a click on a +x face pushes toward -x
  const n = hit.normal;
  if (Math.abs(n.z) > 0.5) { lab.say('push test: click a side of a block, not its top'); return; }
  const direction = Math.abs(n.x) > 0.5 ? (n.x > 0 ? '-x' : '+x') : (n.y > 0 ? '-y' : '+y');
  lab.page.push = { edits: lab.page.edits, text: `${hit.block}:${direction}` };
  await explain();
  const words = el('explain').textContent;
  if (/push test/.test(words)) document.body.dataset.push = `${hit.block} ${direction}`;
}
