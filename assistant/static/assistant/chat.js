/*
 * The chat page: renders the history, talks to the conversation's websocket, and falls back to the
 * HTTP endpoints (send/, messages/) whenever the socket is not open.
 *
 * Plain JavaScript with no build step and no dependencies, served by Django's staticfiles.
 * Every piece of text from the server goes through textContent, never innerHTML: replies quote event
 * summaries and other text that people outside the user's control can write.
 */
(function () {
  "use strict";

  var app = document.getElementById("app");
  if (!app) {
    return;
  }

  var KIND_LABELS = {
    answer: "answer",
    clarify: "clarify",
    choose: "choose",
    confirm: "confirm",
    done: "done",
    error: "error"
  };
  var POLL_INTERVAL_MS = 1500;
  var POLL_GIVE_UP_MS = 3 * 60 * 1000;
  // A run's reply is sent beside its workflow.paused / workflow.finished event; a page still waiting
  // this long after that event missed the reply on the way, and fetches it.
  var SETTLED_GRACE_MS = 2000;
  var MAX_RECONNECT_DELAY_MS = 30000;

  var config = {
    conversationId: app.dataset.conversationId,
    wsPath: app.dataset.wsPath,
    sendUrl: app.dataset.sendUrl,
    messagesUrl: app.dataset.messagesUrl,
    loginUrl: app.dataset.loginUrl
  };

  var els = {
    scroll: document.getElementById("chat-scroll"),
    messages: document.getElementById("messages"),
    empty: document.getElementById("empty-state"),
    progress: document.getElementById("progress"),
    progressStatus: document.getElementById("progress-status"),
    progressList: document.getElementById("progress-list"),
    form: document.getElementById("composer"),
    input: document.getElementById("message-input"),
    sendButton: document.getElementById("send-button"),
    error: document.getElementById("composer-error"),
    connection: document.getElementById("connection"),
    title: document.getElementById("chat-title"),
    currentLink: document.getElementById("current-conversation-link"),
    sidebar: document.getElementById("sidebar"),
    sidebarToggle: document.getElementById("sidebar-toggle")
  };

  var csrfInput = els.form.querySelector("input[name=csrfmiddlewaretoken]");
  var csrfToken = csrfInput ? csrfInput.value : "";
  var maxChars = parseInt(els.input.getAttribute("maxlength"), 10) || 2000;

  var state = {
    byId: new Map(), // message id -> <li>
    lastId: 0,
    busy: false,
    pendingEl: null, // the user's bubble until the server echoes it back
    pendingText: "",
    socket: null,
    reconnectAttempts: 0,
    reconnectTimer: null,
    pollTimer: null,
    pollStarted: 0,
    tasks: new Map() // task id -> <li> in the progress list, for the current turn
  };

  /* ---------------------------------------------------------------- rendering */

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  function formatTime(iso) {
    if (!iso) {
      return "";
    }
    var date = new Date(iso);
    if (isNaN(date.getTime())) {
      return "";
    }
    return date.toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
  }

  function isNearBottom() {
    var s = els.scroll;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 120;
  }

  function scrollToBottom() {
    els.scroll.scrollTop = els.scroll.scrollHeight;
  }

  function updateEmptyState() {
    els.empty.hidden = state.byId.size > 0 || state.pendingEl !== null;
  }

  function actionButton(label, onClick, extraClass) {
    var button = el("button", "button button-small " + (extraClass || "button-secondary"), label);
    button.type = "button";
    button.addEventListener("click", function () {
      if (!button.disabled) {
        onClick();
      }
    });
    return button;
  }

  function buildActions(payload) {
    var data = payload.data || {};
    if (payload.kind === "choose" && Array.isArray(data.options) && data.options.length) {
      var options = el("div", "message-actions");
      options.setAttribute("role", "group");
      options.setAttribute("aria-label", "Options");
      data.options.forEach(function (option) {
        var label = option && typeof option === "object" ? option.label : option;
        if (label === undefined || label === null || label === "") {
          return;
        }
        var button = actionButton(String(label), function () {
          send(String(label));
        }, "button-option");
        if (option && option.value !== undefined) {
          button.dataset.value = String(option.value);
        }
        options.appendChild(button);
      });
      if (Array.isArray(data.more) && data.more.length) {
        // The other matches are not buttons: the user names one by its day.
        options.appendChild(actionButton("Another…", function () {
          els.input.value = "the one on ";
          els.input.focus();
        }, "button-option"));
      }
      return options;
    }
    if (payload.kind === "confirm") {
      var confirm = el("div", "message-actions");
      confirm.setAttribute("role", "group");
      confirm.setAttribute("aria-label", "Approve or decline");
      confirm.appendChild(actionButton("Approve", function () { send("yes"); }, "button-primary"));
      confirm.appendChild(actionButton("Decline", function () { send("no"); }, "button-secondary"));
      return confirm;
    }
    if (payload.kind === "done" && data.undo && data.undo.run_id) {
      // Live on every applied reply, not only the newest: undoing an older run is safe, because the
      // server leaves alone (and names) every event edited since.
      var undo = el("div", "message-actions message-undo");
      var redo = Boolean(data.reverted);
      var runId = String(data.undo.run_id);
      undo.appendChild(actionButton(redo ? "Redo" : "Undo", function () {
        send(redo ? "Redo that" : "Undo that", runId);
      }, "button-secondary"));
      return undo;
    }
    return null;
  }

  /* ---------------------------------------------------------------- week view of a preview */

  var DAY_MS = 24 * 60 * 60 * 1000;
  var ROW_CLASSES = {
    existing: "Existing",
    "moved-from": "Moves from here",
    "moved-to": "Moves here",
    "new": "New",
    deleted: "Deleted",
    changed: "Changed"
  };

  /** Wall time of an ISO string in the user's zone (the server sends them so): no browser-zone shift. */
  function wall(iso) {
    var m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(String(iso || ""));
    if (!m) {
      return null;
    }
    var day = Date.UTC(+m[1], +m[2] - 1, +m[3]);
    return { day: day, minutes: +m[4] * 60 + +m[5] };
  }

  function dayOf(isoDate) {
    var m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(isoDate || ""));
    return m ? Date.UTC(+m[1], +m[2] - 1, +m[3]) : null;
  }

  function dayLabel(day) {
    return new Date(day).toLocaleDateString([], { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" });
  }

  function clock(minutes) {
    var d = new Date(Date.UTC(2000, 0, 1, Math.floor(minutes / 60), minutes % 60));
    return d.toLocaleTimeString([], { hour: "numeric", minute: "2-digit", timeZone: "UTC" });
  }

  /** Items of the week view: the other events, and each change as what leaves and what arrives. */
  function weekItems(rows, week) {
    var items = [];
    function add(kind, summary, span, allDay) {
      if (!span || !span.start || !span.end) {
        return;
      }
      var a = wall(span.start);
      var b = wall(span.end);
      if (a && b) {
        items.push({ kind: kind, summary: summary, start: a, end: b, allDay: Boolean(allDay) });
      }
    }
    (week.events || []).forEach(function (e) {
      add("existing", e.summary, e, e.all_day);
    });
    rows.forEach(function (row) {
      if (row.action === "create") {
        add("new", row.summary, row.after, row.all_day);
      } else if (row.action === "delete") {
        add("deleted", row.summary, row.before, row.all_day);
      } else if (row.after && row.before && row.after.start !== row.before.start) {
        add("moved-from", row.summary, row.before, row.all_day);
        add("moved-to", row.summary, row.after, row.all_day);
      } else {
        add("changed", row.summary, row.after || row.before, row.all_day);
      }
    });
    return items;
  }

  /** Side-by-side lanes for overlapping items of one day, so none hides another. */
  function layoutDay(items) {
    items.sort(function (x, y) { return x.top - y.top || y.bottom - x.bottom; });
    var cluster = [];
    var lanes = [];
    var clusterEnd = -1;
    function flush() {
      cluster.forEach(function (item) { item.lanes = lanes.length; });
      cluster = [];
      lanes = [];
    }
    items.forEach(function (item) {
      if (item.top >= clusterEnd) {
        flush();
      }
      var lane = 0;
      while (lane < lanes.length && lanes[lane] > item.top) {
        lane += 1;
      }
      lanes[lane] = item.bottom;
      item.lane = lane;
      cluster.push(item);
      clusterEnd = Math.max(clusterEnd, item.bottom);
    });
    flush();
  }

  function renderWeek(container, rows, week, index) {
    container.textContent = "";
    var weeks = week.weeks || [];
    var monday = dayOf(weeks[index]);
    var days = [];
    for (var i = 0; i < 7; i += 1) {
      days.push(monday + i * DAY_MS);
    }
    var all = weekItems(rows, week);
    var timed = [];
    var allDay = [];
    all.forEach(function (item) {
      if (item.allDay) {
        // All-day spans end at the midnight after their last day.
        for (var d = item.start.day; d < Math.max(item.end.day, item.start.day + DAY_MS); d += DAY_MS) {
          if (d >= days[0] && d <= days[6]) {
            allDay.push({ kind: item.kind, summary: item.summary, day: d });
          }
        }
        return;
      }
      // Split at midnights, so an event past midnight shows on both days.
      for (var day = item.start.day; day <= item.end.day; day += DAY_MS) {
        var top = day === item.start.day ? item.start.minutes : 0;
        var bottom = day === item.end.day ? item.end.minutes : 24 * 60;
        if (bottom > top && day >= days[0] && day <= days[6]) {
          timed.push({ kind: item.kind, summary: item.summary, day: day, top: top, bottom: bottom,
                       from: item.start.minutes, to: item.end.minutes });
        }
      }
    });
    var lo = 8 * 60;
    var hi = 18 * 60;
    timed.forEach(function (item) {
      lo = Math.min(lo, Math.floor(item.top / 60) * 60);
      hi = Math.max(hi, Math.ceil(item.bottom / 60) * 60);
    });
    var span = Math.max(hi - lo, 60);
    // Every column's all-day strip gets the same height, so the hours line up across the grid.
    var allDayHeight = 4 + 16 * days.reduce(function (most, day) {
      return Math.max(most, allDay.filter(function (a) { return a.day === day; }).length);
    }, 0) + "px";

    var head = el("div", "week-head");
    var title = el("p", "week-title", "Week of " + dayLabel(days[0]) +
      (weeks.length > 1 ? " (" + (index + 1) + " of " + weeks.length + ")" : ""));
    title.setAttribute("aria-live", "polite");
    head.appendChild(title);
    if (weeks.length > 1) {
      var nav = el("div", "week-nav");
      var prev = actionButton("‹ Previous week", function () { renderWeek(container, rows, week, index - 1); });
      var next = actionButton("Next week ›", function () { renderWeek(container, rows, week, index + 1); });
      prev.disabled = index === 0;
      next.disabled = index === weeks.length - 1;
      prev.classList.add("week-nav-button");
      next.classList.add("week-nav-button");
      nav.appendChild(prev);
      nav.appendChild(next);
      head.appendChild(nav);
    }
    container.appendChild(head);

    var grid = el("div", "week-grid");
    grid.style.setProperty("--week-hours", String(span / 60));
    var gutter = el("div", "week-gutter");
    gutter.appendChild(el("div", "week-day-head"));
    var gutterAllDay = el("div", "week-all-day");
    gutterAllDay.style.height = allDayHeight;
    gutter.appendChild(gutterAllDay);
    var hours = el("div", "week-hours");
    for (var h = lo; h < hi; h += 60) {
      hours.appendChild(el("div", "week-hour", new Date(Date.UTC(2000, 0, 1, h / 60)).toLocaleTimeString(
        [], { hour: "numeric", timeZone: "UTC" })));
    }
    gutter.appendChild(hours);
    grid.appendChild(gutter);
    days.forEach(function (day) {
      var column = el("div", "week-day");
      column.setAttribute("role", "list");
      column.setAttribute("aria-label", dayLabel(day));
      column.appendChild(el("div", "week-day-head", dayLabel(day)));
      var allDayRow = el("div", "week-all-day");
      allDayRow.style.height = allDayHeight;
      allDay.filter(function (a) { return a.day === day; }).forEach(function (a) {
        var chip = el("div", "week-event week-" + a.kind, a.summary);
        chip.setAttribute("role", "listitem");
        chip.dataset.change = a.kind;
        chip.title = ROW_CLASSES[a.kind] + ": " + a.summary + ", all day";
        allDayRow.appendChild(chip);
      });
      column.appendChild(allDayRow);
      var body = el("div", "week-day-body");
      var today = timed.filter(function (t) { return t.day === day; });
      layoutDay(today);
      today.forEach(function (t) {
        var box = el("div", "week-event week-" + t.kind);
        box.setAttribute("role", "listitem");
        box.dataset.change = t.kind;
        box.style.top = ((t.top - lo) / span * 100) + "%";
        box.style.height = ((t.bottom - t.top) / span * 100) + "%";
        box.style.left = (t.lane / t.lanes * 100) + "%";
        box.style.width = (100 / t.lanes) + "%";
        var when = clock(t.from) + "–" + clock(t.to);
        box.title = ROW_CLASSES[t.kind] + ": " + t.summary + ", " + when;
        box.appendChild(el("span", "visually-hidden", ROW_CLASSES[t.kind] + ": "));
        box.appendChild(el("span", "week-event-summary", t.summary));
        box.appendChild(el("span", "week-event-time", " " + when));
        body.appendChild(box);
      });
      column.appendChild(body);
      grid.appendChild(column);
    });
    container.appendChild(grid);
    if (index >= (week.context_weeks || 0)) {
      container.appendChild(el("p", "week-note", "Only the changes are shown for this week."));
    }
    var legend = el("ul", "week-legend");
    legend.setAttribute("aria-label", "Legend");
    ["existing", "moved-from", "moved-to", "new", "deleted"].forEach(function (kind) {
      var entry = el("li", "week-legend-item");
      entry.appendChild(el("span", "week-swatch week-" + kind));
      entry.appendChild(document.createTextNode(ROW_CLASSES[kind]));
      legend.appendChild(entry);
    });
    container.appendChild(legend);
  }

  function buildWeekView(data) {
    var week = data.week;
    if (!week || !Array.isArray(week.weeks) || !week.weeks.length || !Array.isArray(data.preview)) {
      return null;
    }
    var view = el("figure", "week-view");
    view.setAttribute("aria-label", "Week view of the proposed changes");
    renderWeek(view, data.preview, week, 0);
    return view;
  }

  function buildMessage(payload) {
    var isUser = payload.role === "user";
    var item = el("li", "message " + (isUser ? "message-user" : "message-assistant"));
    if (payload.id !== undefined && payload.id !== null) {
      item.dataset.id = String(payload.id);
    }
    item.dataset.role = payload.role || "assistant";

    var bubble = el("div", "bubble");
    var meta = el("div", "message-meta");
    if (isUser) {
      meta.appendChild(el("span", "visually-hidden", "You said"));
    } else {
      var kind = KIND_LABELS[payload.kind] ? payload.kind : "answer";
      item.dataset.kind = kind;
      var badge = el("span", "kind kind-" + kind, KIND_LABELS[kind]);
      badge.setAttribute("aria-label", "Assistant, " + KIND_LABELS[kind]);
      meta.appendChild(badge);
    }
    var time = formatTime(payload.created_at);
    if (time) {
      var timeEl = el("time", "message-time", time);
      timeEl.dateTime = payload.created_at;
      meta.appendChild(timeEl);
    }
    bubble.appendChild(meta);
    bubble.appendChild(el("div", "message-text", payload.text || ""));

    if (!isUser) {
      var preview = payload.kind === "confirm" ? buildWeekView(payload.data || {}) : null;
      if (preview) {
        bubble.classList.add("has-preview");
        bubble.appendChild(preview);
      }
      var actions = buildActions(payload);
      if (actions) {
        bubble.appendChild(actions);
      }
    }
    item.appendChild(bubble);
    return item;
  }

  /** Insert in id order (history, socket and polling may deliver the same message, or out of order). */
  function renderMessage(payload) {
    if (!payload || payload.id === undefined || payload.id === null) {
      return null;
    }
    if (state.byId.has(payload.id)) {
      return state.byId.get(payload.id);
    }
    var stick = isNearBottom() || payload.role === "user";
    var item = buildMessage(payload);
    var next = null;
    state.byId.forEach(function (node, id) {
      if (id > payload.id && (next === null || Number(next.dataset.id) > id)) {
        next = node;
      }
    });
    els.messages.insertBefore(item, next);
    state.byId.set(payload.id, item);
    state.lastId = Math.max(state.lastId, payload.id);

    if (payload.role === "user") {
      dropPending();
      noteTitle(payload.text || "");
    }
    refreshActions();
    updateEmptyState();
    if (stick) {
      scrollToBottom();
    }
    return item;
  }

  /** Only the newest reply's buttons stay live (an older question has already been answered), except
   * Undo, which stays live on every applied reply. */
  function refreshActions() {
    var last = els.messages.lastElementChild;
    els.messages.querySelectorAll(".message-actions button").forEach(function (button) {
      var owner = button.closest(".message");
      var always = button.closest(".message-undo") !== null;
      button.disabled = state.busy || (!always && owner !== last);
    });
  }

  function noteTitle(text) {
    if (els.title.textContent.trim() !== "New conversation" || !text) {
      return;
    }
    var title = text.trim().slice(0, 80);
    els.title.textContent = title;
    document.title = title + " · Calendar Assistant";
    if (els.currentLink) {
      var span = els.currentLink.querySelector(".conversation-title");
      if (span) {
        span.textContent = title;
      }
    }
  }

  function showPending(text) {
    dropPending();
    var item = buildMessage({ role: "user", text: text, created_at: new Date().toISOString() });
    item.classList.add("is-pending");
    els.messages.appendChild(item);
    state.pendingEl = item;
    state.pendingText = text;
    updateEmptyState();
    scrollToBottom();
  }

  function dropPending() {
    if (state.pendingEl) {
      state.pendingEl.remove();
      state.pendingEl = null;
    }
  }

  /* ---------------------------------------------------------------- progress of the current turn */

  var STATUS_TEXT = {
    running: "running",
    succeeded: "done",
    failed: "failed",
    skipped: "skipped",
    paused: "waiting for you"
  };

  function progressReset() {
    state.tasks.clear();
    els.progressList.textContent = "";
    els.progressStatus.textContent = "Thinking…";
    els.progress.dataset.state = "working";
    els.progress.hidden = false;
  }

  function progressTask(event, status) {
    var id = String(event.task_id || "");
    var item = state.tasks.get(id);
    if (!item) {
      item = el("li", "task");
      item.appendChild(el("span", "task-icon"));
      item.appendChild(el("span", "task-summary", event.summary || id));
      item.appendChild(el("span", "task-status visually-hidden"));
      els.progressList.appendChild(item);
      state.tasks.set(id, item);
    }
    item.dataset.status = status;
    item.querySelector(".task-status").textContent = ", " + (STATUS_TEXT[status] || status);
    if (event.error) {
      item.title = String(event.error);
    }
    els.progress.hidden = false;
    if (isNearBottom()) {
      scrollToBottom();
    }
  }

  function progressDone(reply) {
    els.progress.hidden = true;
    els.progress.dataset.state = "idle";
    if (!reply || state.tasks.size === 0) {
      return;
    }
    // Keep the turn's steps with the reply they produced, folded away.
    var details = el("details", "steps");
    details.appendChild(el("summary", null, state.tasks.size === 1 ? "1 step" : state.tasks.size + " steps"));
    var list = el("ol", "progress-list");
    state.tasks.forEach(function (item) {
      list.appendChild(item.cloneNode(true));
    });
    details.appendChild(list);
    reply.querySelector(".bubble").appendChild(details);
    state.tasks.clear();
  }

  /* ---------------------------------------------------------------- turns */

  function setBusy(busy) {
    state.busy = busy;
    els.sendButton.disabled = busy;
    els.form.setAttribute("aria-busy", busy ? "true" : "false");
    refreshActions();
  }

  function showError(message) {
    els.error.textContent = message;
    els.error.hidden = !message;
  }

  function startTurn(text) {
    showError("");
    showPending(text);
    progressReset();
    setBusy(true);
  }

  function endTurn(reply) {
    stopPolling();
    progressDone(reply);
    setBusy(false);
  }

  function failTurn(message, text) {
    dropPending();
    endTurn(null);
    updateEmptyState();
    showError(message);
    if (text && !els.input.value) {
      els.input.value = text;
      autosize();
    }
  }

  /** One turn: ``undoRun`` (a reply's Undo button) names the run to revert instead of a text to read. */
  function send(raw, undoRun) {
    var text = String(raw || "").trim();
    if (!text || state.busy) {
      return false;
    }
    if (text.length > maxChars) {
      showError("That message is too long: at most " + maxChars + " characters.");
      return false;
    }
    startTurn(text);
    var socket = state.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      var frame = { type: "chat.send", text: text };
      if (undoRun) {
        frame.undo = undoRun;
      }
      socket.send(JSON.stringify(frame));
    } else {
      sendOverHttp(text, undoRun);
    }
    return true;
  }

  function handleReply(payload) {
    var item = renderMessage(payload);
    if (payload.role !== "assistant") {
      return;
    }
    if (state.busy) {
      endTurn(item);
    } else {
      progressDone(item); // a turn typed in another tab: its progress showed here too
    }
  }

  /* ---------------------------------------------------------------- HTTP fallback */

  function toLogin() {
    window.location.assign(config.loginUrl + "?next=" + encodeURIComponent(window.location.pathname));
  }

  function fetchJson(url, options) {
    options = options || {};
    options.credentials = "same-origin";
    options.headers = Object.assign({ Accept: "application/json" }, options.headers || {});
    return fetch(url, options).then(function (response) {
      if (response.redirected && response.url.indexOf(config.loginUrl) !== -1) {
        toLogin();
        throw new Error("signed out");
      }
      return response.json().catch(function () { return {}; }).then(function (body) {
        return { status: response.status, body: body };
      });
    });
  }

  function sendOverHttp(text, undoRun) {
    var body = { text: text };
    if (undoRun) {
      body.undo = undoRun;
    }
    fetchJson(config.sendUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: JSON.stringify(body)
    }).then(function (result) {
      if (result.status === 400) {
        failTurn(result.body.error || "That message could not be sent.", text);
        return;
      }
      if (result.status === 404) {
        failTurn("This conversation no longer exists.", text);
        return;
      }
      if (result.status >= 300) {
        failTurn("The server could not answer (" + result.status + "). Please try again.", text);
        return;
      }
      (result.body.messages || []).forEach(handleReply);
      if (state.busy) {
        // 202: a worker answers later; the reply will come over the socket or through polling.
        startPolling();
      }
    }).catch(function (err) {
      if (err && err.message === "signed out") {
        return;
      }
      failTurn("Could not reach the server. Check your connection and try again.", text);
    });
  }

  function catchUp() {
    return fetchJson(config.messagesUrl + "?after=" + state.lastId).then(function (result) {
      if (result.status === 200) {
        (result.body.messages || []).forEach(handleReply);
      }
    });
  }

  function fetchIfStillWaiting() {
    window.setTimeout(function () {
      if (state.busy) {
        catchUp().catch(function () { /* the socket's reconnect catches up too */ });
      }
    }, SETTLED_GRACE_MS);
  }

  function startPolling() {
    stopPolling();
    state.pollStarted = Date.now();
    state.pollTimer = window.setInterval(function () {
      if (!state.busy) {
        stopPolling();
        return;
      }
      if (Date.now() - state.pollStarted > POLL_GIVE_UP_MS) {
        stopPolling();
        setBusy(false);
        els.progress.hidden = true;
        showError("This is taking a while. The reply will appear here when it is ready.");
        return;
      }
      catchUp().catch(function () { /* try again on the next tick */ });
    }, POLL_INTERVAL_MS);
  }

  function stopPolling() {
    if (state.pollTimer !== null) {
      window.clearInterval(state.pollTimer);
      state.pollTimer = null;
    }
  }

  /* ---------------------------------------------------------------- websocket */

  function setConnection(kind, text) {
    els.connection.dataset.state = kind;
    els.connection.textContent = text;
  }

  function onSocketEvent(event) {
    switch (event.type) {
      case "chat.message":
        handleReply(event.message || {});
        break;
      case "task.started":
        progressTask(event, "running");
        break;
      case "task.finished":
        progressTask(event, event.status || "succeeded");
        break;
      case "workflow.paused":
        els.progressStatus.textContent = "Waiting for your answer…";
        fetchIfStillWaiting();
        break;
      case "workflow.finished":
        els.progressStatus.textContent = event.status === "failed" ? "Something failed." : "Writing the reply…";
        fetchIfStillWaiting();
        break;
      case "error":
        if (state.busy) {
          failTurn(event.message || "Something went wrong.", state.pendingEl ? state.pendingText : "");
        } else {
          showError(event.message || "Something went wrong.");
        }
        break;
      default:
        break; // newer servers may send more; an old page simply ignores them
    }
  }

  function connect() {
    if (!("WebSocket" in window)) {
      setConnection("offline", "Offline mode");
      return;
    }
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket;
    try {
      socket = new WebSocket(scheme + window.location.host + config.wsPath);
    } catch (err) {
      setConnection("offline", "Offline mode");
      return;
    }
    state.socket = socket;
    var opened = false;
    setConnection("connecting", "Connecting…");

    socket.addEventListener("open", function () {
      opened = true;
      setConnection("online", "Live");
      // Anything said while the socket was down (a reply finished by a worker, another tab).
      catchUp().catch(function () {});
    });
    socket.addEventListener("message", function (message) {
      var event;
      try {
        event = JSON.parse(message.data);
      } catch (err) {
        return;
      }
      onSocketEvent(event);
    });
    socket.addEventListener("close", function (closeEvent) {
      if (state.socket === socket) {
        state.socket = null;
      }
      // 1013: the server took the socket but could not reach its channel layer; the pause keeps
      // growing.  Any other close after an open socket starts the pauses again from one second.
      if (closeEvent.code !== 1013 && opened) {
        state.reconnectAttempts = 0;
      }
      if (closeEvent.code === 4401) {
        toLogin();
        return;
      }
      if (closeEvent.code === 4404) {
        setConnection("offline", "Not found");
        showError("This conversation is not available.");
        return;
      }
      setConnection("offline", "Reconnecting…");
      if (state.busy) {
        startPolling(); // the turn goes on without us; fetch its reply over HTTP
      }
      var delay = Math.min(MAX_RECONNECT_DELAY_MS, 1000 * Math.pow(2, state.reconnectAttempts));
      state.reconnectAttempts += 1;
      window.clearTimeout(state.reconnectTimer);
      state.reconnectTimer = window.setTimeout(connect, delay);
    });
  }

  /* ---------------------------------------------------------------- composer */

  function autosize() {
    els.input.style.height = "auto";
    els.input.style.height = Math.min(els.input.scrollHeight, 220) + "px";
  }

  els.form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (send(els.input.value)) {
      els.input.value = "";
      autosize();
    }
    els.input.focus();
  });

  els.input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      els.form.requestSubmit ? els.form.requestSubmit() : els.form.dispatchEvent(new Event("submit"));
    }
  });
  els.input.addEventListener("input", function () {
    autosize();
    if (!els.error.hidden && els.input.value.length <= maxChars) {
      showError("");
    }
  });

  document.querySelectorAll(".suggestion").forEach(function (button) {
    button.addEventListener("click", function () {
      send(button.textContent);
    });
  });

  function setSidebar(open) {
    els.sidebar.classList.toggle("is-open", open);
    els.sidebarToggle.setAttribute("aria-expanded", open ? "true" : "false");
  }

  if (els.sidebarToggle) {
    els.sidebarToggle.addEventListener("click", function (event) {
      event.stopPropagation();
      setSidebar(!els.sidebar.classList.contains("is-open"));
    });
    // On small screens the sidebar is a drawer: a click beside it or Escape closes it.
    document.addEventListener("click", function (event) {
      if (els.sidebar.classList.contains("is-open") && !els.sidebar.contains(event.target)) {
        setSidebar(false);
      }
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && els.sidebar.classList.contains("is-open")) {
        setSidebar(false);
        els.sidebarToggle.focus();
      }
    });
  }

  /* ---------------------------------------------------------------- start */

  var historyNode = document.getElementById("chat-history");
  var initial = [];
  try {
    initial = JSON.parse(historyNode ? historyNode.textContent : "[]") || [];
  } catch (err) {
    initial = [];
  }
  initial.forEach(renderMessage);
  updateEmptyState();
  scrollToBottom();
  connect();
  els.input.focus();
})();
