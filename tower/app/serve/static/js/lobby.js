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
    for (const kind of ['human', ...catalogue.ai]) {
      const o = item('option', kind);
      o.value = kind;
      sel.appendChild(o);
    }
    sel.value = old[p] || (p === 0 ? 'human' : 'ai:greedy');
    label.appendChild(sel);
    box.appendChild(label);
  }
}

function fillOptions() {
  const g = game();
  const box = el('options');
  box.replaceChildren();
  for (const [name, value] of Object.entries(g.options)) {
    const label = item('label', `${name} `);
    let input;
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
    label.appendChild(input);
    box.appendChild(label);
  }
}

function readOptions() {
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
  const body = { game: el('game').value, seats, options: readOptions() };
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
  document.body.dataset.ready = 'true';
})();
