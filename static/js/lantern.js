// Small progressive enhancements. Everything works without this file.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.querySelector(button.dataset.copy);
  if (!field) return;
  field.select();
  const done = () => { button.textContent = "Copied"; setTimeout(() => { button.textContent = "Copy"; }, 1500); };
  if (navigator.clipboard) {
    navigator.clipboard.writeText(field.value).then(done, () => document.execCommand("copy") && done());
  } else if (document.execCommand("copy")) {
    done();
  }
});

// Ask before destructive actions that carry data-confirm (delete a character...).
document.addEventListener("submit", (event) => {
  const message = event.target.dataset && event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});

// After a roll, options that cost something (a push) untick themselves, and the odds follow.
document.addEventListener("htmx:afterRequest", (event) => {
  const form = event.detail.elt;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-roll-form") || !event.detail.successful) return;
  let changed = false;
  form.querySelectorAll("input[data-resets]:checked").forEach((box) => { box.checked = false; changed = true; });
  if (changed) form.dispatchEvent(new Event("change", { bubbles: true }));
});

// An input that matters only for some values of another (a class feature's own options beside the feature chosen:
// Param.when) shows only then; hidden, it is disabled so the form does not send it.
function syncWhen(root) {
  root.querySelectorAll("[data-when-field]").forEach((field) => {
    const form = field.closest("form");
    const other = form && form.querySelector(`[name="${CSS.escape(field.dataset.whenField)}"]`);
    if (!other) return;
    const shown = field.dataset.whenValues.split("\n").includes(other.value);
    field.hidden = !shown;
    field.querySelectorAll("input, select, textarea").forEach((input) => { input.disabled = !shown; });
  });
}
document.addEventListener("change", (event) => {
  const form = event.target.closest && event.target.closest("form");
  if (form) syncWhen(form);
});
document.addEventListener("DOMContentLoaded", () => syncWhen(document));
document.addEventListener("htmx:load", (event) => syncWhen(event.detail.elt));

// A roll control that could not load offers its page instead of "Loading…" (see .control-loader in the CSS).
document.addEventListener("htmx:afterRequest", (event) => {
  const loader = event.detail.elt;
  if (!(loader instanceof HTMLElement) || !loader.matches(".control-loader") || event.detail.successful) return;
  loader.dataset.failed = "true";
  loader.removeAttribute("aria-busy");
});

// Busy (core/busy.py): the server's 503 says "try again in a moment" in the page's message area, where a refused
// request's sentence goes (htmx 2 swaps no 5xx by itself). Only ours: it names where it goes (HX-Retarget).
document.addEventListener("htmx:beforeSwap", (event) => {
  const xhr = event.detail.xhr;
  if (xhr.status !== 503 || !xhr.getResponseHeader("HX-Retarget")) return;
  event.detail.shouldSwap = true; // still an error: nothing happened, so nothing that follows a success runs
});

// A region another page changed flashes where it lands; the same content arriving again does not.
function liveRefresh(event) {
  const trigger = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
  return Boolean(trigger && String(trigger.type).startsWith("sse:"));
}
document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  if (target && target.id && liveRefresh(event)) target.dataset.before = target.textContent;
});
document.addEventListener("htmx:afterSwap", (event) => {
  if (!liveRefresh(event)) return;
  const id = event.detail.target && event.detail.target.id;
  const fresh = id && document.getElementById(id);
  const before = event.detail.target.dataset.before;
  if (!fresh || before === undefined || before === fresh.textContent) return;
  fresh.classList.remove("flash");
  void fresh.offsetWidth; // restart the animation
  fresh.classList.add("flash");
});

// On a phone the sheet (and the GM's table) shows one part at a time; the tabs switch parts without scrolling the page
// away.
const PARTED = ".sheet, .table";
const FIRST_PART = { sheet: "sheet", table: "party" };
document.addEventListener("click", (event) => {
  const tab = event.target.closest(".sheet a[data-part], .table a[data-part]"); // the tabs, and links to a part
  if (!tab) return;
  const sheet = tab.closest(PARTED);
  if (!sheet || !window.matchMedia("(max-width: 47.99rem)").matches) return;
  event.preventDefault();
  showPart(sheet, tab.dataset.part);
  window.scrollTo({ top: 0 });
});

function showPart(sheet, part) {
  sheet.dataset.show = part;
  sheet.querySelectorAll(".section-tabs a[data-part]").forEach((tab) => {
    if (tab.dataset.part === part) tab.setAttribute("aria-current", "true");
    else tab.removeAttribute("aria-current");
  });
}

function firstPart(parted) {
  return FIRST_PART[parted.matches(".table") ? "table" : "sheet"];
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".section-tabs").forEach((tabs) => {
    const parted = tabs.closest(PARTED);
    if (parted && !parted.dataset.show) showPart(parted, firstPart(parted));
  });
});

// Roll where the thing is: a stat, a weapon or a spell (a button with data-roll-to, characters' lantern tags) opens
// its roll control in the Roll part, loads it if it was never opened, fills the inputs its data-set-* name, and
// brings it into view (on a phone, the Roll part first).
document.addEventListener("click", (event) => {
  const trigger = event.target.closest("[data-roll-to]");
  if (!trigger) return;
  const procedure = trigger.dataset.rollTo;
  const control = document.querySelector(`.roll-panel .roll-control[data-procedure="${CSS.escape(procedure)}"]`);
  if (!control) return;
  event.preventDefault();
  const sheet = control.closest(".sheet");
  if (sheet && sheet.querySelector(".section-tabs") && window.matchMedia("(max-width: 47.99rem)").matches) showPart(sheet, "roll");
  control.open = true; // a closed control loads on its toggle (hx-trigger="toggle once")
  whenLoaded(control, (form) => {
    preset(form, procedure, trigger);
    control.scrollIntoView({ block: "start" });
    const button = form.querySelector("button[type=submit]");
    if (button) button.focus({ preventScroll: true });
  });
});

function whenLoaded(control, then) {
  const form = control.querySelector("form[data-roll-form]");
  if (form) {
    then(form);
    return;
  }
  const loaded = () => {
    const fresh = control.querySelector("form[data-roll-form]");
    if (!fresh) return;
    document.removeEventListener("htmx:afterSettle", loaded);
    then(fresh);
  };
  document.addEventListener("htmx:afterSettle", loaded);
}

// Each data-set-NAME of the trigger into the form's field PROCEDURE-NAME: a list's option by its value, else the
// first whose words start with it (a spell by its name); a set of boxes, that one ticked alone; a box, ticked for "on".
function preset(form, procedure, trigger) {
  let changed = null;
  for (const attr of trigger.attributes) {
    if (!attr.name.startsWith("data-set-")) continue;
    const fields = form.querySelectorAll(`[name="${CSS.escape(procedure + "-" + attr.name.slice(9))}"]`);
    const value = attr.value;
    fields.forEach((field) => {
      if (field instanceof HTMLSelectElement) {
        const options = [...field.options];
        const wanted = value.toLowerCase();
        const option = options.find((o) => o.value === value) || options.find((o) => o.text.trim().toLowerCase().startsWith(wanted));
        if (option) field.value = option.value;
      } else if (field instanceof HTMLInputElement && (field.type === "checkbox" || field.type === "radio")) {
        field.checked = fields.length > 1 ? field.value === value : value === "on";
      } else if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) {
        field.value = value;
      }
      changed = field;
    });
  }
  if (changed) changed.dispatchEvent(new Event("change", { bubbles: true })); // the odds follow
}

// A sheet or table swapped in whole (a change of GM reloads it) starts on its first part again.
document.addEventListener("htmx:load", (event) => {
  const parted = event.detail.elt;
  if (parted instanceof HTMLElement && parted.matches(PARTED) && parted.querySelector(".section-tabs")) showPart(parted, firstPart(parted));
});

// The account menu closes on a click elsewhere or on Escape, as menus do (without this file it closes on its summary).
document.addEventListener("click", (event) => {
  document.querySelectorAll("details.account-menu[open]").forEach((menu) => {
    if (!menu.contains(event.target)) menu.open = false;
  });
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  document.querySelectorAll("details.account-menu[open]").forEach((menu) => {
    menu.open = false;
    menu.querySelector("summary").focus();
  });
});

// Pushed changes (campaigns/push.py) arrive over the page's stream and swap themselves in out of band.
// A region keeps what is as new as the push or newer (this page's own answer came first, with its Undo: the push
// of that same change must not take the Undo away); a roll's line lands once; a log keeps its length.
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  const target = event.detail.target;
  const fresh = event.detail.fragment && event.detail.fragment.firstElementChild;
  if (!target || !fresh) return;
  // A roll's line already on the page is kept unless this one is newer (voided, undone, applied: data-version).
  const shown = fresh.id && fresh.id.startsWith("roll-") ? document.getElementById(fresh.id) : null;
  if (shown && Number(fresh.dataset.version || 0) <= Number(shown.dataset.version || 0)) {
    event.detail.shouldSwap = false;
    return;
  }
  if (!pushing) return; // a page's own answer: swapped as it came
  if (target.dataset.version && fresh.dataset.version) {
    // Older than what the page shows, or the very same drawing (same version, same table): keep the page's.
    const older = Number(fresh.dataset.version) < Number(target.dataset.version);
    const same = fresh.dataset.version === target.dataset.version && fresh.dataset.table === target.dataset.table;
    if (older || same) {
      event.detail.shouldSwap = false;
      return;
    }
  }
  // Someone is filling in a form here and the push shows nothing new (the push of their own last change, whose
  // answer they have): keep the page's, and what they typed.
  if (beingFilledIn(target) && drawnText(fresh) === drawnText(target)) {
    event.detail.shouldSwap = false;
    return;
  }
  if (target.id) {
    target.dataset.before = target.textContent;
    inUse.set(target.id, whatIsInUse(target));
    const stays = [...target.querySelectorAll("[data-stays]")].map((said) => said.outerHTML);
    if (stays.length) staying.set(target.id, stays);
  }
});
// What the person's own answer said in a region (the harm the rules just did, data-stays) stays when a push of
// that region lands after it: the push is drawn for every viewer and never carries it.
const staying = new Map();
function putStaying(landed) {
  const stays = staying.get(landed.id);
  staying.delete(landed.id);
  if (!stays || landed.querySelector("[data-stays]")) return;
  const heading = landed.querySelector("h2");
  const holder = document.createElement("template");
  holder.innerHTML = stays.join("");
  if (heading) heading.after(holder.content);
  else landed.prepend(holder.content);
}

// A region's words as the server draws them: without what the page writes into <output> as a person types (the
// time control's "30 minutes = 3 turns"), which a pushed copy never has.
function drawnText(region) {
  const copy = region.cloneNode(true);
  copy.querySelectorAll("output").forEach((out) => out.remove());
  return copy.textContent.trim();
}

function beingFilledIn(region) {
  const active = document.activeElement;
  if (active && region.contains(active) && active.matches("input, select, textarea")) return true;
  return [...region.querySelectorAll("form")].some((form) => !atDefaults(form));
}
document.addEventListener("htmx:oobAfterSwap", (event) => {
  const landed = event.target;
  if (!(landed instanceof HTMLElement)) return;
  const log = landed.matches("li[id^='roll-']") ? landed.closest("[data-log]") : null;
  if (log) {
    log.querySelectorAll(":scope > li.muted").forEach((empty) => empty.remove()); // "No rolls yet."
    // A line the page already had (an entry written while the page was drawn comes once more): keep the new one.
    log.querySelectorAll(`:scope > li[id="${landed.id}"]`).forEach((twin) => { if (twin !== landed) twin.remove(); });
    const keep = Number(log.dataset.keep || 0);
    if (keep) log.querySelectorAll(":scope > li[id^='roll-']").forEach((row, n) => { if (n >= keep) row.remove(); });
    flash(landed);
    return;
  }
  if (landed.id && inUse.has(landed.id)) {
    putBack(landed, inUse.get(landed.id));
    inUse.delete(landed.id);
  }
  if (landed.id && staying.has(landed.id)) putStaying(landed);
  const before = event.detail.target && event.detail.target.dataset.before;
  if (landed.id && before !== undefined && before !== landed.textContent) flash(landed);
  if (landed.id === "default-odds") applyDefaultOdds(landed);
});

// A pushed change that moves the odds brings those of every roll form at its default inputs: an open form still at
// its defaults shows them as they come (no request); if the player changed a form's inputs, the page asks once for
// the odds of its open forms as they stand.
function applyDefaultOdds(block) {
  let ask = false;
  document.querySelectorAll(".roll-panel details[open] form[data-roll-form]").forEach((form) => {
    const details = form.closest("details");
    const box = details && document.getElementById(`odds-${details.dataset.procedure}`);
    const fresh = box && block.querySelector(`template[data-procedure="${CSS.escape(details.dataset.procedure)}"]`);
    if (!fresh) return;
    if (atDefaults(form)) box.replaceChildren(fresh.content.cloneNode(true));
    else ask = true;
  });
  const refresh = document.getElementById("odds-refresh");
  if (ask && refresh) htmx.trigger(refresh, "odds-moved");
}

function atDefaults(form) {
  return [...form.elements].every((field) => {
    if (field.hasAttribute("data-odds-neutral")) return true; // who sees the roll moves no odds
    if (field instanceof HTMLSelectElement) {
      const initial = [...field.options].findIndex((option) => option.defaultSelected);
      return field.selectedIndex === Math.max(initial, 0);
    }
    if (field instanceof HTMLInputElement && (field.type === "checkbox" || field.type === "radio")) {
      return field.checked === field.defaultChecked;
    }
    if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) return field.value === field.defaultValue;
    return true;
  });
}

function flash(element) {
  element.classList.remove("flash");
  void element.offsetWidth; // restart the animation
  element.classList.add("flash");
}

// A region pushed while someone is using it keeps the <details> they opened open (a GM adding an NPC is not closed
// out of the form by the push of their own change). Only for pushes: a page's own answers draw what it asked for.
let pushing = false;
document.addEventListener("htmx:sseBeforeMessage", () => { pushing = true; });
document.addEventListener("htmx:sseMessage", () => { pushing = false; });
const inUse = new Map();
function detailsKey(details) {
  const summary = details.querySelector(":scope > summary");
  return details.id || details.dataset.procedure || (summary ? summary.textContent.trim() : "");
}
function whatIsInUse(region) {
  return [...region.querySelectorAll("details[open]")].map(detailsKey).filter(Boolean);
}
function putBack(region, open) {
  region.querySelectorAll("details").forEach((details) => {
    if (open.includes(detailsKey(details))) details.open = true;
  });
}

// A roll the GM asks for reaches the player wherever they are on the sheet: when the pushed requests region arrives
// with more waiting than before, a prompt in view (announced: aria-live) with one tap to the request; while any
// wait, a badge on the Roll tab (the request sits above the parts: every tab leads to it).
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  const target = event.detail.target;
  if (target && target.id === "sheet-requests") target.dataset.waitingBefore = target.dataset.requests || "0";
  if (target && target.id === "requests") askedBefore = ownAsks(target);
});
document.addEventListener("htmx:oobAfterSwap", (event) => {
  const landed = event.target;
  if (!(landed instanceof HTMLElement)) return;
  if (landed.id === "requests") {
    promptOwnAsk(landed);
    return;
  }
  if (landed.id !== "sheet-requests") return;
  const before = Number((event.detail.target && event.detail.target.dataset.waitingBefore) || 0);
  const waiting = Number(landed.dataset.requests || 0);
  if (waiting > before) promptRequest(landed);
  markRequests();
});
document.addEventListener("htmx:afterSettle", markRequests);
document.addEventListener("DOMContentLoaded", () => {
  // In the page before it speaks, so it is announced: the sheet's, and a player's table page's.
  if (document.querySelector(".sheet .section-tabs") || document.querySelector("[data-own-characters]")) requestToast();
});

// A player on the table page is asked too: a request for one of their own characters that was not waiting before
// gets the same prompt, its "Roll it" opening that character's sheet at the request.
let askedBefore = new Set();
function ownCharacters() {
  const table = document.querySelector("[data-own-characters]");
  return table ? table.dataset.ownCharacters.split(" ").filter(Boolean) : [];
}
function ownAsks(region) {
  const mine = ownCharacters();
  const asks = [...region.querySelectorAll("li[data-asks]")].filter((li) => mine.includes(li.dataset.asks));
  return new Set(asks.map((li) => `${li.closest("[data-request]").dataset.request}:${li.dataset.asks}`));
}
function promptOwnAsk(region) {
  if (!ownCharacters().length) return;
  const fresh = [...region.querySelectorAll("li[data-asks]")].find((li) => {
    const key = `${li.closest("[data-request]").dataset.request}:${li.dataset.asks}`;
    return ownCharacters().includes(li.dataset.asks) && !askedBefore.has(key);
  });
  askedBefore = ownAsks(region);
  if (!fresh) return;
  const label = fresh.closest("[data-request]").querySelector("strong");
  const go = document.createElement("a");
  go.className = "button small";
  go.href = `${fresh.dataset.sheet}#sheet-requests`;
  go.textContent = "Roll it";
  showToast(`The GM asks ${fresh.dataset.answer} for a roll: ${label ? label.textContent.trim() : "a roll"}`, go);
}
document.addEventListener("DOMContentLoaded", () => {
  const region = document.getElementById("requests");
  if (region) askedBefore = ownAsks(region);
});
// Opened from such a prompt: the sheet's requests arrive after the page, then the answer takes the focus.
document.addEventListener("htmx:afterSwap", (event) => {
  const region = event.target;
  if (!(region instanceof HTMLElement) || region.id !== "sheet-requests" || location.hash !== "#sheet-requests") return;
  if (region.dataset.focusedOnce) return;
  const answer = region.querySelector("button[data-answer]");
  if (!answer) return;
  region.dataset.focusedOnce = "1";
  region.scrollIntoView({ block: "start" });
  answer.focus({ preventScroll: true });
});

function requestToast() {
  let toast = document.getElementById("request-toast");
  if (toast) return toast;
  toast = document.createElement("div");
  toast.id = "request-toast";
  toast.className = "request-toast";
  toast.setAttribute("role", "status");
  toast.setAttribute("aria-live", "polite");
  toast.hidden = true;
  document.body.append(toast);
  return toast;
}

function promptRequest(region) {
  const first = region.querySelector("form.roll-request strong");
  const odds = region.querySelector("form.roll-request [data-request-odds]");
  const what = (first ? first.textContent.trim() : "a roll") + (odds ? ` (${odds.textContent.replace(/\s+/g, " ").trim()})` : "");
  const go = document.createElement("button");
  go.type = "button";
  go.className = "small";
  go.dataset.goRequest = "";
  go.textContent = "Roll it";
  showToast(`The GM asks for a roll: ${what}`, go);
}

function showToast(words, go) {
  const toast = requestToast();
  const close = document.createElement("button");
  close.type = "button";
  close.className = "small secondary";
  close.dataset.closeToast = "";
  close.setAttribute("aria-label", "Close");
  close.textContent = "×";
  const text = document.createElement("span");
  text.textContent = words;
  toast.replaceChildren(text, go, close);
  toast.hidden = false;
}

function markRequests() {
  const region = document.getElementById("sheet-requests");
  const tab = document.querySelector('.sheet .section-tabs a[data-part="roll"]');
  if (!region || !tab) return;
  const waiting = Number(region.dataset.requests || 0);
  let badge = tab.querySelector(".tab-badge");
  if (!waiting) {
    if (badge) badge.remove();
    const toast = document.getElementById("request-toast");
    if (toast) toast.hidden = true;
    return;
  }
  if (!badge) {
    badge = document.createElement("span");
    badge.className = "tab-badge";
    tab.append(badge);
  }
  badge.textContent = String(waiting);
  badge.setAttribute("aria-label", `${waiting} roll${waiting > 1 ? "s" : ""} asked`);
}

document.addEventListener("click", (event) => {
  const toast = event.target.closest("#request-toast");
  if (!toast) return;
  if (event.target.closest("[data-close-toast]")) {
    toast.hidden = true;
    return;
  }
  if (!event.target.closest("[data-go-request]")) return;
  toast.hidden = true;
  const region = document.getElementById("sheet-requests");
  if (!region) return;
  region.scrollIntoView({ block: "start" });
  const answer = region.querySelector("button[data-answer]");
  if (answer) answer.focus({ preventScroll: true });
});

// The game clock's one control says what its count comes to in the chosen unit before it is let pass ("60 minutes =
// 6 turns"), and that it goes no further than its bound (issue 36, item 7).
function spanWords(seconds) {
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (seconds % 60) return plural(seconds, "second");
  const minutes = seconds / 60;
  if (minutes >= 2880 && minutes % 1440 === 0) return plural(minutes / 1440, "day");
  if (minutes >= 120 && minutes % 60 === 0) return plural(minutes / 60, "hour");
  return plural(minutes, "minute");
}
function timeSpan(form) {
  const out = form.querySelector("[data-time-span]");
  const unit = form.querySelector("select[name=unit]");
  const count = form.querySelector("input[name=count]");
  if (!out || !unit || !count) return;
  const option = unit.selectedOptions[0];
  const n = Number(count.value);
  const most = Number(count.max);
  if (!option || !Number.isInteger(n) || n < 1) {
    out.textContent = `Type how many, 1 to ${most}.`;
  } else if (n > most) {
    out.textContent = `At most ${most} at a time.`;
  } else {
    const name = option.dataset.name;
    const plural = /(s|x|ch|sh)$/.test(name) ? `${name}es` : `${name}s`;
    const counted = n === 1 ? `1 ${name}` : name.includes(" ") ? `${n} × ${name}` : `${n} ${plural}`;
    out.textContent = `${spanWords(n * Number(option.dataset.seconds))} = ${counted}`;
  }
}
document.addEventListener("input", (event) => {
  const form = event.target.closest && event.target.closest("form[data-time-form]");
  if (form) timeSpan(form);
});
document.addEventListener("change", (event) => {
  const form = event.target.closest && event.target.closest("form[data-time-form]");
  if (form) timeSpan(form);
});
document.addEventListener("DOMContentLoaded", () => document.querySelectorAll("form[data-time-form]").forEach(timeSpan));
document.addEventListener("htmx:load", (event) => {
  const root = event.detail.elt;
  if (root instanceof Element) root.querySelectorAll("form[data-time-form]").forEach(timeSpan);
});

// The sheet by keyboard (issue 36, item 11). The skip links lead into the Roll part's open form (the first control
// opened if none is) or to the Vitals, the part shown first on a phone, and focus lands on the first field there.
// Enter on an open roll control's summary goes into its form rather than folding it away (Space still folds it);
// opened with Enter, a control takes the focus into its form once it has loaded.
function firstField(root) {
  return [...root.querySelectorAll("input:not([type=hidden]), select, textarea, button")]
    .find((field) => !field.disabled && field.getClientRects().length > 0);
}
function focusInto(root) {
  const field = firstField(root);
  if (field) {
    field.focus();
    return;
  }
  if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "-1");
  root.focus();
}
function focusControl(control) {
  control.open = true; // a closed control loads on its toggle
  whenLoaded(control, (form) => {
    control.scrollIntoView({ block: "start" });
    focusInto(form);
  });
}
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("a[data-skip-to]");
  if (!link) return;
  const sheet = document.querySelector(".sheet");
  if (!sheet) return;
  event.preventDefault();
  const phone = sheet.querySelector(".section-tabs") && window.matchMedia("(max-width: 47.99rem)").matches;
  if (link.dataset.skipTo === "roll") {
    if (phone) showPart(sheet, "roll");
    const controls = [...sheet.querySelectorAll(".roll-panel details.roll-control")];
    const control = controls.find((c) => c.open) || controls[0];
    if (control) focusControl(control);
    return;
  }
  const vitals = document.getElementById("vitals");
  if (!vitals) return;
  if (phone) showPart(sheet, "sheet");
  vitals.scrollIntoView({ block: "start" });
  focusInto(vitals);
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || !(event.target instanceof Element)) return;
  const summary = event.target.closest("summary");
  const control = summary && summary.parentElement;
  if (!control || !control.matches(".roll-control") || summary !== control.querySelector(":scope > summary")) return;
  if (control.open) {
    event.preventDefault();
    focusControl(control);
  } else {
    setTimeout(() => focusControl(control)); // after the browser has opened it
  }
});

// A printed sheet's Print button (issue 40): the browser's print dialog, with the page's own print stylesheet.
document.addEventListener("click", (event) => {
  if (event.target instanceof Element && event.target.closest("[data-print]")) window.print();
});

// The time of play ticks by static/js/clock.js, loaded once a running clock is on the page (the table page, a sheet
// whose table runs real time): a sheet's first load goes without it (issue 39).
function loadClockWhenShown() {
  const src = document.body.dataset.clockScript;
  if (!src || document.querySelector("script[data-clock-script]")) return;
  if (!document.querySelector("[data-clock][data-since]")) return;
  const script = document.createElement("script");
  script.src = src;
  script.dataset.clockScript = "";
  document.head.append(script);
}
document.addEventListener("DOMContentLoaded", loadClockWhenShown);
document.addEventListener("htmx:load", loadClockWhenShown);
