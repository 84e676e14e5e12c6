// The sheet with no connection (issue 29): the service worker (/sw.js) keeps the sheets a person opened; this file
// shows the "offline — as of HH:MM" banner, keeps the track changes and hand rolls made offline on this device
// (IndexedDB, in that person's own database), shows them as waiting, and sends them in order when the connection
// returns (characters/offline_views.py). A change someone else overtook comes back as a conflict to redo or discard.
// The party's stash (issue 41) is kept the same way: its page (/campaigns/<id>/stash/) is kept by the worker, and a
// Take or Put made offline is a change of the sheet it moves to or from, in the same queue, sent to the same place.
(() => {
  const body = document.body;
  const user = body.dataset.user || "";
  const DB_PREFIX = "lantern-";
  const CACHE_PREFIX = "lantern-user-";
  const servedOffline = body.dataset.offlineAsOf !== undefined;
  const KEPT_PAGE = /^\/(characters\/(\d+\/)?|campaigns\/\d+\/stash\/)$/; // as static/js/sw.js keeps them
  const STASH_KINDS = ["stash-take", "stash-put"];
  let offlineSince = servedOffline ? new Date(body.dataset.offlineAsOf || Date.now()) : null;

  // --- the worker, and nobody else's data on this device ---------------------------------------------------------
  if (user && "serviceWorker" in navigator && window.isSecureContext) {
    const controlledAtLoad = Boolean(navigator.serviceWorker.controller); // this answer most likely came through it
    navigator.serviceWorker.register(body.dataset.worker || "/sw.js", { scope: "/" }).then(() => {
      if (servedOffline) return;
      navigator.serviceWorker.ready.then(async (registration) => {
        // Asked of the cache, not of navigator.serviceWorker.controller: a worker that took control while this page
        // was loading (clients.claim) controls it without having seen, or kept, its answer.
        const kept = await caches.open(CACHE_PREFIX + user).then((cache) => cache.match(location.href));
        if (kept && controlledAtLoad) return;
        const assets = [...document.querySelectorAll("link[rel=stylesheet], script[src], link[rel=icon], link[rel=apple-touch-icon]")]
          .map((tag) => tag.href || tag.src);
        const pages = KEPT_PAGE.test(location.pathname) ? [location.href] : [];
        // The worker may be gone by now (logout's Clear-Site-Data unregisters it): then there is nothing to keep.
        if (registration.active) registration.active.postMessage({ type: "keep", pages, assets });
      }).catch(() => {}); // the cache storage cleared under the page (logout): the same
    }, () => {});
  }
  forgetOthers().catch(() => {}); // best effort: the next page of this device tries again

  async function forgetOthers() {
    // Logged out (or another person logged in on this device): their kept pages and changes go.
    if (window.caches) {
      for (const name of await caches.keys()) {
        if (name.startsWith(CACHE_PREFIX) && name !== CACHE_PREFIX + user) await caches.delete(name);
      }
    }
    if (window.indexedDB && indexedDB.databases) {
      for (const db of await indexedDB.databases()) {
        if (db.name && db.name.startsWith(DB_PREFIX) && db.name !== DB_PREFIX + user) indexedDB.deleteDatabase(db.name);
      }
    }
  }

  if (!user) return;

  // --- the queue: one IndexedDB store, in the order the changes were made ----------------------------------------
  let dbPromise = null;
  // The browser closed the store under this page (logout's Clear-Site-Data, or another person's page on this device
  // deleting it): this person's changes are gone from the device on purpose, so there is nothing left to read or
  // keep. Without this, the next use threw "The database connection is closing", uncaught (issue 36, item 12).
  let wiped = false;
  function db() {
    dbPromise = dbPromise || new Promise((resolve, reject) => {
      const open = indexedDB.open(DB_PREFIX + user, 1);
      open.onupgradeneeded = () => open.result.createObjectStore("changes", { keyPath: "seq", autoIncrement: true });
      open.onsuccess = () => {
        const database = open.result;
        database.onclose = () => { wiped = true; };
        database.onversionchange = () => { wiped = true; database.close(); };
        resolve(database);
      };
      open.onerror = () => reject(open.error);
    });
    return dbPromise;
  }
  async function store(mode, work) {
    const database = await db();
    if (wiped) return undefined;
    return new Promise((resolve, reject) => {
      let tx;
      try {
        tx = database.transaction("changes", mode);
      } catch (error) {
        if (error.name !== "InvalidStateError") throw error;
        wiped = true; // closing: see above
        resolve(undefined);
        return;
      }
      const result = work(tx.objectStore("changes"));
      tx.oncomplete = () => resolve(result && result.result);
      // Aborted by a full disk (said), else by the store closed under it (gone on purpose, as above).
      tx.onerror = () => (tx.error && !wiped ? reject(tx.error) : resolve(undefined));
      tx.onabort = () => {
        if (tx.error && tx.error.name === "QuotaExceededError") return reject(tx.error);
        wiped = true;
        resolve(undefined);
      };
    });
  }
  const allChanges = async () => (await store("readonly", (s) => s.getAll())) || [];
  const putChange = (change) => store("readwrite", (s) => s.put(change));
  const dropChange = (seq) => store("readwrite", (s) => s.delete(seq));

  function newKey() {
    return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  }

  const theSheet = () => document.querySelector(".sheet[data-character]"); // drawn afresh on a resync
  const theStash = () => document.querySelector("#stash[data-stash]"); // drawn afresh by each move, and pushed
  const isOffline = () => !navigator.onLine || servedOffline;
  function shownVersion() {
    const vitals = document.getElementById("vitals");
    return Number((vitals && vitals.dataset.version) || 0);
  }
  // The table's journal cursor the page has seen: drawn into its stream's address (after=), then each pushed
  // change's id. Sent with a kept change, so a conflict can say what happened at the table meanwhile.
  let pushedCursor = 0;
  document.addEventListener("htmx:sseMessage", (event) => {
    const id = Number(event.detail && event.detail.lastEventId);
    if (Number.isSafeInteger(id) && id > pushedCursor) pushedCursor = id;
  });
  function shownCursor() {
    const streamed = theSheet() || document.querySelector("[sse-connect]"); // the sheet's stream, or the table page's
    const drawn = /[?&]after=(\d+)/.exec((streamed && streamed.getAttribute("sse-connect")) || "");
    const stash = theStash(); // the stash's own page has no stream: the cursor it was drawn at
    const stashCursor = Number((stash && stash.dataset.journalCursor) || 0);
    const cursor = Math.max(pushedCursor, drawn ? Number(drawn[1]) : 0, stashCursor); // a resync draws a later after=
    return cursor > 0 ? cursor : null;
  }

  // --- offline: a track's +/- and a hand roll are kept; a roll with the server's dice says it needs a connection ---
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!isOffline() || !(form instanceof HTMLFormElement)) return;
    if (STASH_KINDS.includes(form.dataset.offline)) {
      event.preventDefault();
      event.stopImmediatePropagation(); // as below: htmx would send it now and lose it
      const change = stashChange(form, new FormData(form, event.submitter || undefined));
      if (change) putChange({ ...change, key: newKey(), cursor: shownCursor(), state: "waiting", message: "", at: Date.now() }).then(drawQueue);
      return;
    }
    const sheet = theSheet();
    if (!sheet || !sheet.contains(form)) return;
    const fields = new FormData(form, event.submitter || undefined);
    let change = null;
    if (form.dataset.offline === "track") {
      const delta = Number(fields.get("delta"));
      const track = String(fields.get("key") || "");
      if (!Number.isInteger(delta) || !track) return;
      change = { kind: "track", track, delta, label: `${trackLabel(track)} ${delta > 0 ? "+" : "−"}${Math.abs(delta)}` };
    } else if (form.dataset.offline === "notes") {
      change = { kind: "notes", notes: String(fields.get("notes") || ""), label: "Notes edited" };
    } else if (form.matches("[data-roll-form], [data-quick-roll]")) {
      const hand = String(fields.get("hand") || "").trim();
      if (!hand) {
        event.preventDefault();
        event.stopImmediatePropagation();
        needsConnection(form);
        return;
      }
      const procedure = form.closest("[data-procedure]").dataset.procedure;
      const pairs = [...fields.entries()].filter(([name]) => name !== "csrfmiddlewaretoken" && name !== "hand").map(([n, v]) => [n, String(v)]);
      const label = form.closest("details").querySelector("summary").textContent.trim();
      change = { kind: "roll", procedure, fields: pairs, hand, label: `${label}: ${hand} (rolled by hand)` };
    } else {
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation(); // htmx's own submit handler would send it now and lose it
    if (change.kind === "notes") form.closest("details").open = false;
    const kept = {
      ...change, key: newKey(), character: sheet.dataset.character, url: sheet.dataset.offlineUrl,
      version: shownVersion(), cursor: shownCursor(), state: "waiting", message: "", at: Date.now(),
    };
    putChange(kept).then(drawQueue);
  }, true);

  // A Take or Put on the stash: a change of the sheet it moves to or from (the chosen option says which sheet, its
  // version and where its changes go), naming the item by id and how many (none: all of it).
  function stashChange(form, fields) {
    const take = form.dataset.offline === "stash-take";
    const select = form.querySelector(take ? "select[name=character]" : "select[name=item]");
    const option = select && select.selectedOptions[0];
    if (!option || !option.dataset.offlineUrl) return null;
    const chosen = String(select.value).split(":"); // a Put's option is "character:item"
    const item = Number(take ? form.dataset.item : chosen[1]);
    const typed = String(fields.get("quantity") || "").trim();
    const quantity = typed ? Number(typed) : null;
    if (!Number.isSafeInteger(item) || (quantity !== null && !(Number.isInteger(quantity) && quantity >= 1))) return null;
    const count = quantity === null ? "" : ` ×${quantity}`;
    const label = take ? `${option.textContent.trim()} takes ${form.dataset.name}${count}`
      : `${option.dataset.who} puts ${option.dataset.name}${count || " (all)"} in the stash`;
    return {
      kind: form.dataset.offline, character: chosen[0], url: option.dataset.offlineUrl, version: Number(option.dataset.version),
      stash: form.closest("[data-stash]").dataset.stash, item, quantity, label,
    };
  }

  function trackLabel(key) {
    const sheet = theSheet();
    const label = sheet && sheet.querySelector(`[data-track="${CSS.escape(key)}"] .label`);
    return label ? label.textContent.trim() : key;
  }

  function needsConnection(form) {
    let note = form.querySelector("[data-needs-connection]");
    if (!note) {
      note = document.createElement("p");
      note.className = "error";
      note.setAttribute("role", "alert");
      note.dataset.needsConnection = "";
      form.append(note);
    }
    note.textContent = "Rolling with the server's dice needs a connection. Try again when you are back online"
      + (form.querySelector("[name=hand]") ? ", or roll at the table and type the faces under “I rolled these”." : ".");
  }

  // --- what the sheet shows: the banner, the waiting changes, the conflicts ---------------------------------------
  function drawBanner() {
    drawNotesEditor();
    let banner = document.getElementById("offline-banner");
    if (!isOffline()) {
      if (banner) banner.remove();
      document.querySelectorAll("[data-needs-connection]").forEach((note) => note.remove());
      return;
    }
    if (!banner) {
      banner = document.createElement("p");
      banner.id = "offline-banner";
      banner.className = "offline-banner";
      banner.setAttribute("role", "status");
      document.getElementById("main").prepend(banner);
    }
    const at = (offlineSince || new Date()).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
    banner.textContent = `Offline — as of ${at}.` + (theSheet() || theStash() ? " Changes you make here are kept on this device and sent when you are back online." : "");
  }

  // Notes are edited on their own page online; offline, the sheet offers them here (only to who may edit it).
  function drawNotesEditor() {
    const sheet = theSheet();
    let editor = document.getElementById("offline-notes");
    if (!isOffline() || !sheet || !sheet.querySelector("form[data-offline=track]")) {
      if (editor) editor.remove();
      return;
    }
    const details = document.getElementById("details");
    if (editor || !details) return;
    editor = document.createElement("details");
    editor.id = "offline-notes";
    editor.className = "card";
    const summary = document.createElement("summary");
    summary.textContent = "Edit notes offline";
    const form = document.createElement("form");
    form.dataset.offline = "notes";
    const label = document.createElement("label");
    label.htmlFor = "offline-notes-text";
    label.textContent = "Notes (kept on this device, sent when you are back online)";
    const text = document.createElement("textarea");
    text.id = "offline-notes-text";
    text.name = "notes";
    text.maxLength = 2000;
    text.rows = 4;
    const shown = details.querySelector(".notes");
    text.value = shown ? shown.innerText.trim() : "";
    const keep = document.createElement("button");
    keep.type = "submit";
    keep.className = "small";
    keep.textContent = "Keep the notes";
    form.append(label, text, keep);
    editor.append(summary, form);
    details.after(editor);
  }

  // The card of what is kept: one line for the waiting changes to the numbers (the numbers themselves show them),
  // a row for each other waiting change (a roll, the notes), and a short row for each one the server refused.
  async function drawQueue() {
    const sheet = theSheet();
    if (!sheet && !theStash()) return;
    const all = await allChanges();
    drawStashQueue(all);
    if (!sheet) return;
    const mine = all.filter((c) => c.character === sheet.dataset.character);
    let box = document.getElementById("offline-queue");
    if (!mine.length) {
      if (box) box.remove();
      drawPending([]);
      return;
    }
    if (!box) {
      box = document.createElement("section");
      box.id = "offline-queue";
      box.className = "card offline-queue";
      box.setAttribute("aria-live", "polite");
      const head = sheet.querySelector(".sheet-head");
      head.after(box);
    }
    const title = document.createElement("h2");
    title.textContent = "Kept on this device";
    const parts = [title];
    const numbers = mine.filter((c) => c.state === "waiting" && c.kind === "track").length;
    if (numbers) {
      const line = document.createElement("p");
      line.className = "muted";
      line.dataset.waitingTracks = String(numbers);
      line.textContent = `${numbers} change${numbers > 1 ? "s" : ""} to the numbers above, waiting to be sent.`;
      parts.push(line);
    }
    const list = document.createElement("ul");
    list.append(...mine.filter((c) => c.state !== "waiting" || c.kind !== "track").map(queueRow));
    if (list.children.length) parts.push(list);
    box.replaceChildren(...parts);
    drawPending(mine.filter((c) => c.state === "waiting"));
  }

  // A kept change's row: what it is, and "waiting to be sent" or the server's refusal with what to do about it.
  function queueRow(change) {
    const row = document.createElement("li");
    row.dataset.change = change.key;
    row.dataset.state = change.state;
    const what = document.createElement("strong");
    what.textContent = change.label;
    row.append(what, " ");
    const note = document.createElement("span");
    note.textContent = change.state === "waiting" ? "waiting to be sent" : shortMessage(change.message);
    note.className = change.state === "waiting" ? "muted" : "error";
    if (change.state !== "waiting") note.title = change.message;
    row.append(note);
    if (change.state !== "waiting") {
      if (change.kind !== "roll" || change.state === "conflict") row.append(" ", button("Redo", "redo", change.seq));
      row.append(" ", button("Discard", "discard", change.seq));
    }
    return row;
  }

  // The stash's moves kept on this device, under its title; each item a Take waits for says so.
  function drawStashQueue(all) {
    const stash = theStash();
    if (!stash) return;
    const mine = all.filter((c) => STASH_KINDS.includes(c.kind) && c.stash === stash.dataset.stash);
    stash.querySelectorAll("[data-pending]").forEach((mark) => mark.remove());
    let box = document.getElementById("stash-queue");
    if (!mine.length) {
      if (box) box.remove();
      return;
    }
    if (!box) {
      box = document.createElement("div");
      box.id = "stash-queue";
      box.className = "offline-queue";
      box.setAttribute("aria-live", "polite");
      stash.querySelector("h2").after(box);
    }
    const title = document.createElement("h3");
    title.textContent = "Kept on this device";
    const list = document.createElement("ul");
    list.append(...mine.map(queueRow));
    box.replaceChildren(title, list);
    mine.filter((c) => c.state === "waiting" && c.kind === "stash-take").forEach((change) => {
      const row = document.getElementById(`stash-item-${change.item}`);
      const name = row && row.querySelector("strong");
      if (!name) return;
      const mark = document.createElement("span");
      mark.className = "pending";
      mark.dataset.pending = change.key;
      mark.textContent = ` (${change.quantity === null ? "all" : "×" + change.quantity} taken, not sent yet)`;
      name.after(mark);
    });
  }

  // A refusal's first clause ("gm_o changed HP since you made this change (HP -2)"): the buttons beside it say
  // what to do, so the card stays a line a change on a phone.
  function shortMessage(message) {
    const cut = (message || "").indexOf(": ");
    return cut > 0 ? `${message.slice(0, cut)}.` : message;
  }

  function button(text, action, seq) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "small secondary";
    b.dataset.queueAction = action;
    b.dataset.seq = String(seq);
    b.textContent = text;
    return b;
  }

  // Each track with changes waiting shows the number it will have once they are sent, and by how much that is
  // not sent yet: "3/6 (−3 not sent yet)". The server's own number comes back with the next drawing of the sheet.
  function drawPending(waiting) {
    const sheet = theSheet();
    if (!sheet) return;
    sheet.querySelectorAll("[data-pending]").forEach((mark) => mark.remove());
    sheet.querySelectorAll("[data-track] [data-value][data-server-value]").forEach((value) => {
      value.textContent = value.dataset.serverValue;
      delete value.dataset.serverValue;
    });
    const sums = new Map();
    waiting.filter((c) => c.kind === "track").forEach((c) => sums.set(c.track, (sums.get(c.track) || 0) + c.delta));
    sums.forEach((sum, key) => {
      const track = sheet.querySelector(`[data-track="${CSS.escape(key)}"]`);
      const value = track && track.querySelector("[data-value]");
      if (!value || !sum) return;
      value.dataset.serverValue = value.textContent;
      value.textContent = String(Math.max(0, expected(track, Number(value.textContent), sum)));
      const mark = document.createElement("span");
      mark.className = "pending";
      mark.dataset.pending = String(sum);
      mark.textContent = ` (${sum > 0 ? "+" : "−"}${Math.abs(sum)} not sent yet)`;
      value.parentElement.append(mark);
    });
  }

  // The track's number once the change is applied, kept within its bounds as the rules keep it.
  function expected(track, shown, sum) {
    const current = track.dataset.current !== undefined ? Number(track.dataset.current) : shown;
    const low = track.dataset.minimum !== undefined ? Number(track.dataset.minimum) : -Infinity;
    const high = track.dataset.maximum !== undefined ? Number(track.dataset.maximum) : Infinity;
    return Math.min(high, Math.max(low, current + sum));
  }

  document.addEventListener("click", async (event) => {
    const action = event.target.closest("[data-queue-action]");
    if (!action) return;
    const seq = Number(action.dataset.seq);
    if (action.dataset.queueAction === "discard") {
      await dropChange(seq);
    } else {
      const change = (await allChanges()).find((c) => c.seq === seq);
      if (!change) return;
      // Redo: made again against the sheet as it shows now, under a new key (the old one's answer is kept).
      await dropChange(seq);
      const { seq: _old, ...rest } = change;
      // A stash move is checked against the stash as it is when it arrives: its sheet's version stays its own.
      const version = STASH_KINDS.includes(change.kind) ? change.version : shownVersion();
      await putChange({ ...rest, key: newKey(), version, cursor: shownCursor(), state: "waiting", message: "" });
    }
    await drawQueue();
    if (!isOffline()) send();
  });

  // --- back online: send what waits, in order; then the page catches up -----------------------------------------
  // One sending at a time; a change kept while one runs goes in the next, right after it.
  let sending = null;
  let again = false;
  function send() {
    if (sending) {
      again = true;
      return sending;
    }
    sending = sendAll().finally(() => {
      sending = null;
      if (again) {
        again = false;
        send();
      }
    });
    return sending;
  }

  async function sendAll() {
    const token = csrfToken();
    let applied = 0;
    for (const change of (await allChanges()).sort((a, b) => a.seq - b.seq)) {
      if (change.state !== "waiting") continue;
      const { kind, key, version, cursor = null } = change; // a change kept before cursors were sent has none
      const payload = kind === "track" ? { track: change.track, delta: change.delta }
        : STASH_KINDS.includes(kind) ? { item: change.item, quantity: change.quantity }
          : kind === "notes" ? { notes: change.notes } : { procedure: change.procedure, fields: change.fields, hand: change.hand };
      let response;
      try {
        response = await fetch(change.url, {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRFToken": token },
          body: JSON.stringify({ key, version, cursor, kind, ...payload }),
        });
      } catch (unreachable) {
        break; // still no connection: try again on the next "online"
      }
      if (response.status === 403) break; // signed out meanwhile: kept until they sign in again
      if (response.status === 503) break; // the server is busy: nothing was saved, kept for the next try
      const answer = await response.json().catch(() => ({}));
      if (response.ok) {
        applied += 1;
        await dropChange(change.seq);
      } else {
        await putChange({
          ...change,
          state: response.status === 409 ? "conflict" : "refused",
          message: answer.message || "The server refused this change.",
        });
      }
    }
    await drawQueue();
    return applied;
  }

  function csrfToken() {
    try {
      return JSON.parse(body.getAttribute("hx-headers") || "{}")["x-csrftoken"] || "";
    } catch (malformed) {
      return "";
    }
  }

  async function backOnline() {
    await send();
    if (servedOffline) {
      location.reload(); // the kept copy is old: draw the sheet afresh (its stream starts from now)
      return;
    }
    offlineSince = null;
    drawBanner();
    // The sheet resyncs as after a change of GM: drawn afresh in place, with a stream that starts from now (what was
    // pushed while the connection was down, the GM's changes included, is in it; a conflict is redone against it).
    if (theSheet() && window.htmx) {
      htmx.ajax("GET", location.pathname, { target: ".sheet", select: ".sheet", swap: "outerHTML" });
    }
    redrawStash();
  }

  // The stash's region as it is now: what was sent, and what others moved meanwhile (its own page has no stream).
  function redrawStash() {
    const stash = theStash();
    if (stash && window.htmx) htmx.ajax("GET", stash.dataset.regionUrl, { target: "#stash", swap: "outerHTML" });
  }

  window.addEventListener("offline", () => {
    offlineSince = offlineSince || new Date();
    drawBanner();
  });
  window.addEventListener("online", backOnline);
  document.addEventListener("htmx:afterSettle", () => drawQueue());
  document.addEventListener("htmx:oobAfterSwap", () => drawQueue());

  // Logging out with changes still waiting discards them: ask first.
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    // The attribute, not form.action: a form with a field named "action" (a roll's fix: apply or void) shadows the
    // property with that field, and .endsWith on it threw on every such submit (issue 36, item 12).
    const action = form instanceof HTMLFormElement ? new URL(form.getAttribute("action") || "", location.href).pathname : "";
    if (!action.endsWith("/accounts/logout/") || form.dataset.confirmed) return;
    event.preventDefault();
    const waiting = (await allChanges()).filter((c) => c.state === "waiting").length;
    if (waiting && !window.confirm(`${waiting} change${waiting > 1 ? "s" : ""} made offline ${waiting > 1 ? "have" : "has"} not been sent yet. Log out and discard ${waiting > 1 ? "them" : "it"}?`)) return;
    form.dataset.confirmed = "true";
    form.submit();
  });

  document.addEventListener("DOMContentLoaded", () => {
    if (isOffline()) {
      offlineSince = offlineSince || new Date();
      drawBanner();
    }
    drawQueue();
    if (!isOffline()) send().then((applied) => applied && redrawStash());
  });
})();
