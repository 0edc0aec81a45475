// The lobby: create a game (which game, seats, seed, rule options), then hand out one link per human seat and the
// spectators' link; open a record file for the replay page.
import { call, errorText, el, item } from './api.js';

let catalogue = null;
const RECENT_KEY = 'tower-recent-games';

function game() {
  return catalogue.games.find((g) => g.name === el('game').value);
}

function fillPlayers() {
  const g = game();
  el('credit').textContent = g.credit;
  el('how-text').replaceChildren(...(g.how_to_play || '').split(/\n\s*\n/).map((para) => item('p', para)));
  const sel = el('players');
  sel.replaceChildren(...g.players.map((n) => {
    const o = item('option', String(n));
    o.value = n;
    o.selected = n === g.default_players;
    return o;
  }));
  fillSeats();
  fillOptions();
}

function fillSeats() {
  const n = Number(el('players').value);
  const box = el('seats');
  const old = [...box.querySelectorAll('select')].map((s) => s.value);
  box.replaceChildren();
  for (let p = 0; p < n; p++) {
    const label = item('label', `Seat ${p} `);
    const sel = item('select');
    sel.name = `seat${p}`;
    sel.appendChild(seatOption('human', 'human'));
    // the AI levels by name first (with what they do and, as a tooltip, the player behind each in this game),
    // then every code name for experts
    const levels = item('optgroup');
    levels.label = 'Computer, by level';
    const codes = item('optgroup');
    codes.label = 'Computer, by code name (experts)';
    for (const level of catalogue.levels) {
      const o = seatOption(level.spec, `${level.label}: ${level.text}`);
      o.title = `in ${game().title}: ${game().levels[level.spec.replace('ai:', '')]}`;
      levels.appendChild(o);
    }
    for (const kind of catalogue.ai.filter((k) => !catalogue.levels.some((l) => l.spec === k))) {
      codes.appendChild(seatOption(kind, kind));
    }
    sel.append(levels, codes);
    sel.value = old[p] || (p === 0 ? 'human' : 'ai:normal');
    label.appendChild(sel);
    box.appendChild(label);
  }
}

function seatOption(value, text) {
  const o = item('option', text);
  o.value = value;
  return o;
}

// One row of the form per rule option: its label, its input, and one line saying what it does.
function fillOptions() {
  const g = game();
  const box = el('options');
  box.replaceChildren();
  for (const [name, value] of Object.entries(g.options)) {
    const help = g.help[name] || { label: name, text: '' };
    const row = item('div', undefined, 'option');
    const label = item('label', `${help.label} `);
    let input;
    if (name === g.build_option) {
      row.appendChild(label);
      row.appendChild(buildChoice(name));
    } else {
      if (g.choices[name]) {
        input = item('select');
        for (const c of g.choices[name]) {
          const o = item('option', String(c));
          o.value = JSON.stringify(c);
          input.appendChild(o);
        }
        input.value = JSON.stringify(value);
      } else if (typeof value === 'boolean') {
        input = item('input');
        input.type = 'checkbox';
        input.checked = value;
      } else {
        input = item('input');
        input.type = typeof value === 'number' ? 'number' : 'text';
        input.value = value;
      }
      input.dataset.option = name;
      input.dataset.kind = typeof value;
      input.name = `option-${name}`;
      label.appendChild(input);
      row.appendChild(label);
    }
    if (help.text) row.appendChild(item('p', help.text, 'note'));
    box.appendChild(row);
  }
}

// The build option (The Climbers' start tower): a random one, a tower-build/1 file, or a build from a lab link.
function buildChoice(name) {
  const box = item('span', undefined, 'build-choice');
  const sel = item('select');
  sel.name = `option-${name}`;
  sel.dataset.buildOption = name;
  for (const [v, t] of [['random', 'a random start tower'], ['file', 'a build file (tower-build/1)'],
    ['lab', 'a build from a lab link']]) {
    const o = item('option', t);
    o.value = v;
    sel.appendChild(o);
  }
  const file = item('input');
  file.type = 'file';
  file.accept = '.json,application/json';
  file.name = `option-${name}-file`;
  file.hidden = true;
  const link = item('input');
  link.type = 'url';
  link.placeholder = 'paste the lab link (…/lab/…)';
  link.name = `option-${name}-link`;
  link.hidden = true;
  sel.addEventListener('change', () => {
    file.hidden = sel.value !== 'file';
    link.hidden = sel.value !== 'lab';
  });
  box.append(sel, ' ', file, link);
  return box;
}

// A lab link: the lab's page of this server (`/lab/ID`: its build is asked of `/api/lab/ID`), or any link carrying
// the build itself in `build=` (in the fragment or the query): the tower-build/1 document as JSON, percent-encoded
// or base64url-encoded.
export async function buildFromLabLink(text) {
  let url;
  try {
    url = new URL(text.trim(), location.href);
  } catch {
    throw new Error('the lab link is not a link');
  }
  const hash = new URLSearchParams(url.hash.replace(/^#/, ''));
  const raw = hash.get('build') || url.searchParams.get('build');
  const lab = url.pathname.match(/^\/lab\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (!raw && lab) {
    if (url.origin !== location.origin) throw new Error('a lab link of this server is needed (it keeps the build)');
    const answer = await call('GET', `/api/lab/${lab[1]}`);
    if (!answer.ok || !answer.data || typeof answer.data.build !== 'object') {
      throw new Error(`the lab link opens no lab here: ${errorText(answer)}`);
    }
    return answer.data.build;
  }
  if (!raw) throw new Error('the lab link holds no build (neither /lab/ID nor build=...)');
  let json = raw.trim();
  if (!json.startsWith('{')) {
    try {
      json = new TextDecoder().decode(Uint8Array.from(atob(json.replace(/-/g, '+').replace(/_/g, '/')),
        (c) => c.charCodeAt(0)));
    } catch {
      throw new Error('the build in the lab link cannot be read');
    }
  }
  try {
    return JSON.parse(json);
  } catch {
    throw new Error('the build in the lab link is not JSON');
  }
}

async function readBuild(sel) {
  const box = sel.parentElement;
  if (sel.value === 'file') {
    const file = box.querySelector('input[type=file]').files[0];
    if (!file) throw new Error('choose a build file, or a random start tower');
    try {
      return JSON.parse(await file.text());
    } catch {
      throw new Error(`${file.name} is not JSON`);
    }
  }
  if (sel.value === 'lab') return await buildFromLabLink(box.querySelector('input[type=url]').value);
  return null;
}

async function readOptions() {
  const g = game();
  const out = {};
  for (const input of el('options').querySelectorAll('[data-option]')) {
    const name = input.dataset.option;
    let value;
    if (input.tagName === 'SELECT') value = JSON.parse(input.value);
    else if (input.type === 'checkbox') value = input.checked;
    else if (input.dataset.kind === 'number') value = Number(input.value);
    else value = input.value;
    if (JSON.stringify(value) !== JSON.stringify(g.options[name])) out[name] = value;
  }
  for (const sel of el('options').querySelectorAll('[data-build-option]')) {
    const build = await readBuild(sel);
    if (build !== null) out[sel.dataset.buildOption] = build;
  }
  return out;
}

function linkRow(text, url) {
  const li = item('li', `${text}: `);
  const a = item('a', url);
  a.href = url;
  a.target = '_blank';
  li.appendChild(a);
  const copy = item('button', 'Copy');
  copy.type = 'button';
  copy.addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText(url));
  li.append(' ', copy);
  return li;
}

async function create(e) {
  e.preventDefault();
  el('create-error').textContent = '';
  const seats = [...el('seats').querySelectorAll('select')].map((s) => s.value);
  let options;
  try {
    options = await readOptions();
  } catch (err) {
    el('create-error').textContent = err.message;
    return;
  }
  const body = { game: el('game').value, seats, options };
  const seed = el('seed').value.trim();
  if (seed) body.seed = /^\d+$/.test(seed) ? Number(seed) : seed;
  const answer = await call('POST', '/api/games', body);
  if (!answer.ok) {
    el('create-error').textContent = errorText(answer) + (answer.data.where ? ` at ${answer.data.where}` : '');
    return;
  }
  const g = answer.data;
  const list = el('seat-links');
  list.replaceChildren(...g.seats.map((s) => linkRow(`Seat ${s.seat}`, s.url)));
  el('spectator-link').textContent = g.spectator_url;
  el('spectator-link').href = g.spectator_url;
  el('links').hidden = false;
  const recent = JSON.parse(localStorage.getItem(RECENT_KEY) || '[]');
  recent.unshift({ id: g.id, game: body.game, at: new Date().toISOString(), seats: g.seats, spectator: g.spectator_url });
  localStorage.setItem(RECENT_KEY, JSON.stringify(recent.slice(0, 10)));
  showRecent();
}

function showRecent() {
  const recent = JSON.parse(localStorage.getItem(RECENT_KEY) || '[]');
  el('recent-box').hidden = !recent.length;
  el('recent').replaceChildren(...recent.map((r) => {
    const li = item('li', `${r.game}, ${r.at.slice(0, 16).replace('T', ' ')}: `);
    r.seats.forEach((s) => {
      const a = item('a', `seat ${s.seat}`);
      a.href = s.url;
      li.append(a, ' ');
    });
    const w = item('a', 'watch');
    w.href = r.spectator;
    li.append(w);
    return li;
  }));
}

// the games this browser has joined (their pages remember themselves: game.js)
function showJoined() {
  let joined = [];
  try { joined = JSON.parse(localStorage.getItem('tower-joined-games') || '[]'); } catch { joined = []; }
  el('joined-box').hidden = !joined.length;
  el('joined').replaceChildren(...joined.map((j) => {
    const li = item('li');
    const a = item('a', `${j.title}, as ${j.who}${j.over ? ' (over)' : ''}`);
    a.href = j.url;
    li.append(a, ` ${j.at.slice(0, 16).replace('T', ' ')}`);
    return li;
  }));
}

el('spectator-link').parentElement.querySelector('.copy').addEventListener('click', () =>
  navigator.clipboard && navigator.clipboard.writeText(el('spectator-link').href));

el('record-file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  const text = await file.text();
  try {
    JSON.parse(text);
  } catch {
    el('record-error').textContent = `${file.name} is not JSON`;
    return;
  }
  sessionStorage.setItem('tower-replay-record', text);
  location.href = '/replay';
});

(async () => {
  const answer = await call('GET', '/api/catalogue');
  if (!answer.ok) {
    el('create-error').textContent = errorText(answer);
    return;
  }
  catalogue = answer.data;
  el('game').replaceChildren(...catalogue.games.map((g) => {
    const o = item('option', g.title);
    o.value = g.name;
    return o;
  }));
  el('game').addEventListener('change', fillPlayers);
  el('players').addEventListener('change', fillSeats);
  el('new-game').addEventListener('submit', create);
  fillPlayers();
  showRecent();
  showJoined();
  document.body.dataset.ready = 'true';
})();
