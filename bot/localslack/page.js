"use strict";
// The local Slack page's interactive part: who am I, buttons that click (with their confirm
// dialogs), modals (views.open) with their inputs and Submit/Close, the App Home, ephemeral
// messages and failed clicks, shown to the chosen person only; the agent blocks task_card and
// plan. Loaded before the page's own script, which calls these functions. Same rule: every
// text is untrusted, nodes are built with createElement/textContent only.

const STORED_USER = "localslack.user";
const HOME = { shown: false, opened: false };
const TASK_ICONS = { pending: "○", in_progress: "◐", complete: "✅", error: "❌" };
let expiryTimer = null;

function currentUser() {
  try { return localStorage.getItem(STORED_USER) || "U0LOCALUSR"; } catch (err) { return "U0LOCALUSR"; }
}

function chooseUser(id) {
  try { localStorage.setItem(STORED_USER, id); } catch (err) { /* a private window: not kept */ }
  view.shown = -1;  // the next state is another person's: draw it whatever its number
  HOME.opened = false;
  refresh();
}

// Ephemeral messages go where they were posted (channel or thread); failed clicks under the
// message clicked; all before drawing, so the page draws them as it draws the rest.
function mergePersonal(data) {
  const mine = data.me || { ephemerals: [], warnings: [], modals: [], people: [] };
  const channels = new Map(data.channels.map((c) => [c.id, c]));
  const byTs = (a, b) => parseFloat(a.ts) - parseFloat(b.ts);
  for (const message of mine.ephemerals) {
    const channel = channels.get(message.channel);
    if (!channel) continue;
    const parent = message.thread_ts && channel.messages.find((m) => m.ts === message.thread_ts);
    const list = parent && Array.isArray(parent.replies) ? parent.replies : channel.messages;
    list.push(message);
    list.sort(byTs);
  }
  for (const channel of data.channels) {  // agent sessions: the native Stop under their thread
    const sessions = (data.agent_sessions || {})[channel.id] || {};
    for (const message of channel.messages) {
      if (sessions[message.ts]) message.agent_session = sessions[message.ts];
    }
  }
  for (const warning of mine.warnings) {
    const channel = channels.get(warning.channel);
    if (!channel || !warning.ts) continue;
    for (const message of channel.messages.flatMap((m) => [m, ...(m.replies || [])])) {
      if (message.ts === warning.ts) (message.warnings = message.warnings || []).push(warning);
    }
  }
}

async function post(action, body) {
  const response = await fetch("/_page/" + action, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: currentUser(), ...body }),
  });
  return response.json();
}

// -- clicks -------------------------------------------------------------------------------

document.addEventListener("click", (event) => {
  const stop = event.target.closest && event.target.closest(".agent-stop");
  if (stop) {
    stop.disabled = true;
    post("stop", { channel: view.channel, thread_ts: stop.dataset.threadTs }).finally(schedule);
    return;
  }
  const button = event.target.closest && event.target.closest(".btn[data-action-id]");
  if (!button || button.closest("#confirm")) return;
  const where = clickTarget(button);
  if (!where) return;
  if (button.tagName === "BUTTON") event.preventDefault();
  const confirm = button.dataset.confirm ? JSON.parse(button.dataset.confirm) : null;
  if (confirm) askFirst(confirm, () => sendClick(button, where));
  else sendClick(button, where);
});

// What was clicked: the view (modal or Home) or the message, and the block's place in it.
function clickTarget(button) {
  const block = button.closest(".block");
  const holder = block && block.parentElement;
  const index = holder ? [...holder.children].filter((n) => n.classList.contains("block")).indexOf(block) : -1;
  const where = { action_id: button.dataset.actionId, block_index: index };
  const viewNode = button.closest("[data-view-id]");
  if (viewNode) return { ...where, view_id: viewNode.dataset.viewId };
  const message = button.closest("article.message");
  if (!message || !view.channel) return null;
  return { ...where, channel: view.channel, ts: message.dataset.ts };
}

async function sendClick(button, where) {
  button.classList.add("pending");
  button.setAttribute("aria-busy", "true");
  try {
    await post("click", where);
  } finally {
    button.classList.remove("pending");
    button.removeAttribute("aria-busy");
    schedule();
  }
}

// A button's confirm dialog: its title, text, and the confirm and deny buttons.
function askFirst(confirm, then) {
  const box = document.getElementById("confirm");
  const dialog = el("div", "modal");
  dialog.setAttribute("role", "alertdialog");
  dialog.appendChild(textObject(confirm.title, "div", "modal-title"));
  const text = textObject(confirm.text, "div", "modal-body");
  dialog.appendChild(text);
  const foot = el("div", "modal-foot");
  const deny = el("button", "btn confirm-deny");
  plain((confirm.deny && confirm.deny.text) || "Cancel", deny, false);
  const yes = el("button", "btn confirm-yes " + (confirm.style === "danger" ? "danger" : "primary"));
  plain((confirm.confirm && confirm.confirm.text) || "OK", yes, false);
  const done = () => { box.hidden = true; box.replaceChildren(); };
  deny.addEventListener("click", done);
  yes.addEventListener("click", () => { done(); then(); });
  foot.append(deny, yes);
  dialog.appendChild(foot);
  box.replaceChildren(dialog);
  box.hidden = false;
}

// -- blocks drawn here ----------------------------------------------------------------------

function renderInput(block, node) {
  const label = textObject(block.label, "label", "input-label");
  node.appendChild(label);
  const e = block.element || {};
  if (e.type !== "plain_text_input") {
    node.appendChild(el("span", "element", "[" + e.type + "]"));
    return;
  }
  const field = el(e.multiline ? "textarea" : "input", "input-field");
  if (!e.multiline) field.type = "text";
  if (typeof e.initial_value === "string") field.value = e.initial_value;
  if (e.placeholder && typeof e.placeholder.text === "string") field.placeholder = e.placeholder.text;
  if (typeof e.max_length === "number") field.maxLength = e.max_length;
  field.dataset.actionId = e.action_id || "";
  node.appendChild(field);
  if (block.hint) node.appendChild(textObject(block.hint, "div", "input-hint"));
  node.appendChild(el("div", "input-error"));
}

function renderTaskCard(block, node) {
  const card = el("div", "task-card");
  card.dataset.status = block.status || "pending";
  card.dataset.taskId = String(block.task_id || "");
  const head = el("div", "task-head");
  head.appendChild(el("span", "task-status", TASK_ICONS[block.status] || TASK_ICONS.pending));
  head.appendChild(el("span", "task-title", String(block.title || "")));
  card.appendChild(head);
  for (const key of ["details", "output"]) {
    if (block[key] && Array.isArray(block[key].elements)) {
      const part = el("div", "task-" + key);
      richText(block[key].elements, part);
      card.appendChild(part);
    }
  }
  if (Array.isArray(block.sources) && block.sources.length) {
    const sources = el("div", "task-sources");
    for (const source of block.sources) link(String(source.url || ""), String(source.text || source.url || ""), sources);
    card.appendChild(sources);
  }
  node.appendChild(card);
}

function renderPlan(block, node) {
  const plan = el("details", "plan");
  plan.open = true;
  plan.appendChild(el("summary", "plan-title", String(block.title || "")));
  for (const task of Array.isArray(block.tasks) ? block.tasks : []) renderTaskCard(task, plan);
  node.appendChild(plan);
}

// Slack's own Stop, under the thread of an agent session that is processing.
function agentStop(parent) {
  const session = parent.agent_session;
  if (!session || session.status !== "processing") return null;
  const stop = el("button", "btn danger agent-stop", "⏹ Stop");
  stop.type = "button";
  stop.dataset.threadTs = parent.ts;
  stop.title = session.title || "Stop the agent";
  return stop;
}

function viewBlocks(shown, parent) {
  for (const block of shown.blocks || []) parent.appendChild(renderBlock(block));
}

// -- the person's own surfaces: who am I, the App Home, modals, status expiry ------------

function renderApps(data) {
  const mine = data.me;
  const select = document.getElementById("me");
  if (mine && select.dataset.drawn !== JSON.stringify(mine.people)) {
    select.replaceChildren(...mine.people.map((p) => { const o = el("option", null, p.name); o.value = p.id; return o; }));
    select.dataset.drawn = JSON.stringify(mine.people);
    select.onchange = () => chooseUser(select.value);
  }
  if (mine) select.value = mine.user;
  let item = document.getElementById("home-link");
  if (!item) {  // made once and kept: a click on it never lands on a replaced element
    item = el("a", "channel");
    item.href = "#home";
    item.id = "home-link";
    item.appendChild(el("span", "name", "🏠 " + data.bot.name));
    item.addEventListener("click", (event) => { event.preventDefault(); view.home = true; render(); });
    document.getElementById("app-home").replaceChildren(item);
  }
  item.classList.toggle("selected", view.home);
  const app = (mine && mine.app) || {};
  const linkText = app.transport === "socket_mode" ? "Socket Mode · " + app.connections + " connected"
    : app.transport === "http" ? "request URL" : "no app connected";
  document.getElementById("app-link").textContent = linkText;
}

function renderHome(data) {
  const header = document.getElementById("channel-header");
  header.textContent = data.bot.name + " · Home";
  header.dataset.channelId = "";
  const list = document.getElementById("messages");
  const home = data.me && data.me.home;
  const box = el("div", "home");
  if (home) {
    box.dataset.viewId = home.id;
    viewBlocks(home, box);
  } else {
    box.appendChild(el("div", "home-empty", "This app has not published a Home for you yet."));
  }
  list.replaceChildren(box);
  document.getElementById("app").dataset.seq = String(view.seq);
  if (!HOME.opened) {  // the app hears app_home_opened once each time the tab is opened
    HOME.opened = true;
    post("home", {}).catch(() => setLive("offline", "offline"));
  }
}

function renderPersonal(data) {
  if (!view.home) HOME.opened = false;
  renderModal((data.me && data.me.modals) || [], (data.me && data.me.warnings) || []);
  scheduleExpiry(data);
}

// The top modal, as an overlay. Redrawn only when the view changes (its hash), so what the
// person is typing stays; the app's errors are written under their inputs.
function renderModal(modals, warnings) {
  const overlay = document.getElementById("overlay");
  const top = modals[modals.length - 1];
  if (!top) { overlay.hidden = true; overlay.replaceChildren(); delete overlay.dataset.hash; return; }
  if (overlay.dataset.hash !== top.hash) {
    overlay.dataset.hash = top.hash;
    const dialog = el("div", "modal");
    dialog.setAttribute("role", "dialog");
    dialog.dataset.viewId = top.id;
    dialog.dataset.callbackId = top.callback_id || "";
    dialog.appendChild(textObject(top.title, "div", "modal-title"));
    const body = el("div", "modal-body");
    viewBlocks(top, body);
    dialog.appendChild(body);
    dialog.appendChild(el("div", "click-warning modal-warning"));
    const foot = el("div", "modal-foot");
    const close = el("button", "btn modal-close");
    plain((top.close && top.close.text) || "Cancel", close, false);
    close.addEventListener("click", () => post("close", { view_id: top.id }).then(schedule));
    foot.appendChild(close);
    if (top.submit) {
      const submit = el("button", "btn primary modal-submit");
      plain(top.submit.text || "Submit", submit, false);
      submit.disabled = Boolean(top.submit_disabled);
      submit.addEventListener("click", () => submitModal(top, body));
      foot.appendChild(submit);
    }
    dialog.appendChild(foot);
    overlay.replaceChildren(dialog);
    overlay.hidden = false;
  }
  const blocks = [...overlay.querySelectorAll(".modal-body > .block")];
  blocks.forEach((node, i) => {
    const error = node.querySelector(".input-error");
    if (error) error.textContent = (top.errors || {})[top.block_ids[i]] || "";
  });
  const failed = warnings.filter((w) => w.view_id === top.id);
  overlay.querySelector(".modal-warning").textContent = failed.length ? "⚠️ " + failed[failed.length - 1].text : "";
}

function submitModal(top, body) {
  const values = {};
  [...body.children].forEach((node, i) => {
    const field = node.querySelector(".input-field");
    if (field) values[i] = field.value;
  });
  post("submit", { view_id: top.id, values_by_index: values }).then(schedule);
}

// A thread's status clears itself after two minutes: redraw then.
function scheduleExpiry(data) {
  const ends = data.channels.flatMap((c) => Object.values(c.status_details || {}).map((s) => s.expires_at));
  clearTimeout(expiryTimer);
  if (!ends.length) return;
  const wait = Math.max(0, Math.min(...ends) * 1000 - Date.now()) + 250;
  expiryTimer = setTimeout(schedule, Math.min(wait, 2 ** 31 - 1));
}
