// The web console end to end, in headless Chromium driven by puppeteer-core, against a real
// `skillhost serve` (started by console_browser_test.cpp, whose policy asks before task_create).
// Each step waits for what the page shows, never for a fixed time. A screenshot per page goes to
// the artifacts directory. Prints "all console checks passed" at the end; exits 1 on a failure.
// Usage: node console_e2e.mjs '{"scenario": "owner"|"guidance"|"scopes", "url", "token", "plugins_dir",
//   "fixtures_dir", "shots", and for "scopes" "call_token", "approve_token"}'
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";

const cfg = JSON.parse(process.argv[2]);
const WAIT = { timeout: 30000 };
fs.mkdirSync(cfg.shots, { recursive: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "skillhost-chromium-"));

let step = "start";
const problems = [];  // console errors and CSP refusals seen on the page

function check(ok, what) {
  if (!ok) throw new Error("check failed: " + what);
  console.log("ok - " + what);
}

async function text(page, selector) {
  return page.$eval(selector, (e) => e.textContent);
}

async function waitText(page, selector, needle) {
  await page.waitForFunction(
    (sel, want) => [...document.querySelectorAll(sel)].some((e) => e.textContent.includes(want)),
    WAIT, selector, needle);
}

async function shot(page, name, fullPage = true) {
  await page.screenshot({ path: path.join(cfg.shots, name + ".png"), fullPage });
}

async function go(page, view) {
  await page.click(`.tabs a[data-view="${view}"]`);
  await page.waitForSelector(`#view-${view}:not([hidden])`, WAIT);
}

// Every form field has a label, and each of `views` fits a 390 px wide screen (left at that width).
async function checkLabelsAndNarrowScreen(page, views) {
  const unlabeled = await page.evaluate(() => [...document.querySelectorAll("input, select, textarea")]
    .filter((e) => !e.labels || e.labels.length === 0).map((e) => e.id || e.outerHTML));
  check(unlabeled.length === 0, "every form field has a label: " + unlabeled.join(" "));
  await page.setViewport({ width: 390, height: 844 });
  for (const view of views) {
    await go(page, view);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, view + ": nothing overflows a 390 px wide screen (" + overflow + " px)");
  }
}

// Installs a built plugin the way an operator would: the files are staged beside the watched
// directory and moved in, the manifest last, so the watcher never sees half a plugin.
function install(dir) {
  const staging = path.join(path.dirname(cfg.plugins_dir), "console-staging");
  fs.mkdirSync(staging, { recursive: true });
  const files = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile());
  for (const f of files) fs.copyFileSync(path.join(dir, f), path.join(staging, f));
  for (const f of files.filter((f) => !f.endsWith(".yaml"))) fs.renameSync(path.join(staging, f), path.join(cfg.plugins_dir, f));
  for (const f of files.filter((f) => f.endsWith(".yaml"))) fs.renameSync(path.join(staging, f), path.join(cfg.plugins_dir, f));
}

// Holds back the page's fetches of `path` (those without the query parameter `unless`, when given)
// until release(), so an older answer can be made to arrive after a newer one. release() resolves
// once every held answer has been read by the page and what the page does with it has run (the
// code after `await response.text()` runs before the next task), and puts fetch back.
async function holdAnswers(page, path, unless = "") {
  await page.evaluate((path, unless) => {
    const original = window.__originalFetch || (window.__originalFetch = window.fetch);
    let open;
    const hold = { held: 0, answered: 0, released: new Promise((resolve) => { open = resolve; }) };
    hold.open = open;
    window.__hold = hold;
    window.fetch = async (input, init) => {
      const url = new URL(String(input), location.href);
      if (url.pathname !== path || (unless && url.searchParams.has(unless))) return original(input, init);
      hold.held++;
      await hold.released;
      const response = await original(input, init);
      const read = response.text.bind(response);
      response.text = async () => { const body = await read(); hold.answered++; return body; };
      return response;
    };
  }, path, unless);
  return {
    release: async () => {
      const held = await page.evaluate(() => { window.fetch = window.__originalFetch; window.__hold.open(); return window.__hold.held; });
      await page.waitForFunction(() => window.__hold.answered >= window.__hold.held, WAIT);
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
      return held;
    },
  };
}

// Starts a run from the Ask form; resolves when its approval card is shown.
async function askForApproval(page, goal) {
  await go(page, "ask");
  await page.$eval("#goal", (e) => { e.value = ""; });
  await page.type("#goal", goal);
  await page.click("#ask-submit");
  await page.waitForSelector(".approval-card .approve", WAIT);
}

const browser = await puppeteer.launch({
  executablePath: process.env.SKILLHOST_CHROMIUM || "/usr/bin/chromium",
  headless: true,
  userDataDir: profile,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage"],
});

// The owner: sign-in, ask and approve inline, reject from the inbox, runs, skills with hot reload,
// the audit tail, health, labels and a narrow screen, sign-out.
async function ownerScenario(page) {
  step = "sign in with a wrong token";
  const response = await page.goto(cfg.url, { waitUntil: "load" });
  check(response.status() === 200, "GET / answers 200");
  check((response.headers()["content-security-policy"] || "").includes("default-src 'self'"), "the page has a strict CSP");
  await page.type("#token", "not-a-token");
  await page.keyboard.press("Enter");
  await waitText(page, "#signin-error", "AUTH_INVALID");
  check((await text(page, "#signin-error")).includes("does not belong to any user"), "a wrong token is refused in the API's words");
  await shot(page, "signin");

  step = "sign in";
  await page.$eval("#token", (e) => { e.value = ""; });
  await page.type("#token", cfg.token);
  await page.click("#signin-form button");
  await waitText(page, "#who", "owner");
  check(await page.$eval("#app", (e) => !e.hidden), "signed in, the console shows");
  check(await page.evaluate(() => document.activeElement.id === "ask-title"), "the focus moves to the page's heading");
  await page.keyboard.press("Tab");
  check(await page.evaluate(() => document.activeElement.id === "goal"), "Tab goes on to the goal field");
  check(await page.evaluate(() => document.cookie === ""), "no cookies are set");
  check(await page.evaluate(() => sessionStorage.getItem("skillhost.token") !== null), "the token is in session storage");
  await page.evaluate(() => { window.__samePage = true; });  // proves later steps needed no reload

  step = "ask, approve inline";
  await askForApproval(page, "Create a task to call the dentist");
  check(await page.$(".ev-thought") !== null, "thoughts streamed in");
  await waitText(page, ".ev-action", "task_create");
  await waitText(page, ".approval-card .preview", "call the dentist");
  await waitText(page, ".approval-card .rule", "policy.yaml");
  await shot(page, "ask-approval");
  await page.click(".approval-card .approve");
  await waitText(page, ".ev-observation", "task_create");
  await waitText(page, ".ev-end", "completed");
  check((await text(page, ".ev-completion")).includes("call the dentist"), "the answer arrives after the approval");
  await shot(page, "ask");

  step = "reject from the approvals inbox";
  await askForApproval(page, "Create a task to water the plants");
  await go(page, "approvals");
  await page.waitForSelector("#approvals-pending li[data-approval]", WAIT);
  await waitText(page, "#approvals-pending .preview", "water the plants");
  await shot(page, "approvals");
  await page.type("#approvals-pending li[data-approval] input.reason", "not today");
  await page.click("#approvals-pending li[data-approval] button.danger");
  await waitText(page, "#approvals-history li", "not today");
  await waitText(page, "#approvals-history li", "rejected");
  await go(page, "ask");
  await waitText(page, ".ev-end", "completed");
  await waitText(page, "#transcript li:not(.ev-approval_required)", "not today");
  check(true, "the rejected run went on with the reason");

  step = "runs";
  await go(page, "runs");
  await waitText(page, "#runs-list button", "water the plants");
  const runButtons = await page.$$("#runs-list button");
  check(runButtons.length >= 2, "both runs are listed");
  // The run clicked first answers last: the detail still shows the run clicked second.
  const runIdOf = (goal) => page.evaluate((g) =>
    [...document.querySelectorAll("#runs-list button")].find((b) => b.textContent.includes(g)).dataset.run, goal);
  const plantsId = await runIdOf("water the plants");
  const slowDetail = await holdAnswers(page, "/v1/runs/" + plantsId);
  const clickRun = (goal) => page.evaluate((g) =>
    [...document.querySelectorAll("#runs-list button")].find((b) => b.textContent.includes(g)).click(), goal);
  await clickRun("water the plants");
  await clickRun("dentist");
  await page.waitForSelector("#run-detail .steps li", WAIT);
  await waitText(page, "#run-detail h3", "dentist");
  check(await slowDetail.release() >= 1, "the first run's detail was held back, then answered");
  check((await text(page, "#run-detail h3")).includes("dentist"),
    "a slow answer for the run clicked first does not replace the one clicked second: " + await text(page, "#run-detail h3"));
  await waitText(page, "#run-detail", "task_create");
  await shot(page, "runs");

  step = "skills update on hot reload";
  await go(page, "skills");
  await page.waitForSelector('[data-plugin="echo"]', WAIT);
  check(await page.$('[data-plugin="plain_c"]') === null, "plain_c is not installed yet");
  install(path.join(cfg.fixtures_dir, "plain_c"));
  await page.waitForSelector('[data-plugin="plain_c"] [data-skill="upper"]', WAIT);
  await waitText(page, "#status", "catalog changed");
  check(await page.evaluate(() => window.__samePage === true), "the new plugin appeared without reloading the page");
  await page.click('[data-skill="upper"] > summary');
  check((await text(page, '[data-skill="upper"]')).includes("inputs: text: string"), "a skill shows its inputs");
  install(path.join(cfg.fixtures_dir, "missing_entry"));  // a plugin that cannot load
  await waitText(page, "#skills-failures .failure", "missing_entry");
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "skills", false);  // the top: the change notice and the failure (the whole catalog is long)

  step = "audit live tail";
  // The page's first, unfiltered history answers only after the filter was applied: neither its
  // rows nor an unfiltered tail may end up in the filtered view.
  const slowHistory = await holdAnswers(page, "/v1/audit", "kind");
  await go(page, "audit");
  await page.select("#audit-kind", "skill_call");
  await page.click("#audit-filter button");
  await page.waitForSelector('#audit-table[data-live="true"]', WAIT);  // the tail is open
  check(await slowHistory.release() >= 1, "the unfiltered history was held back, then answered");
  // A call made by another client shows up in the open tail.
  const call = await fetch(new URL("/v1/skills/upper/call", cfg.url), {
    method: "POST", headers: { Authorization: "Bearer " + cfg.token, "Content-Type": "application/json" },
    body: JSON.stringify({ args: { text: "live tail" } }),
  });
  check(call.status === 200, "a skill call through the API works (" + call.status + ")");
  await waitText(page, "#audit-rows td", "upper");
  const kinds = await page.$$eval("#audit-rows tr td:nth-child(2)", (tds) => tds.map((t) => t.textContent));
  check(kinds.length > 0 && kinds.every((k) => k === "skill_call"), "the kind filter holds: " + kinds.join(","));
  await shot(page, "audit");

  step = "health";
  await go(page, "health");
  await waitText(page, "#health-ready", "Ready: yes");
  await page.waitForSelector('#health-metrics dd[data-metric="skillhost_skills_loaded"]', WAIT);
  await shot(page, "health");

  step = "accessibility and narrow screens";
  await checkLabelsAndNarrowScreen(page, ["ask", "runs", "skills", "audit", "health", "approvals"]);
  await shot(page, "narrow-approvals");

  step = "sign out";
  // The run list asked for just before signing out answers after it: it must not draw.
  const lateList = await holdAnswers(page, "/v1/runs");
  await go(page, "runs");
  await page.click("#sign-out");
  await page.waitForSelector("#signin:not([hidden])", WAIT);
  check(await lateList.release() >= 1, "the run list asked for before signing out was held back, then answered");
  check(await page.evaluate(() => sessionStorage.getItem("skillhost.token") === null), "signing out forgets the token");
  check(await page.evaluate(() => ["transcript", "audit-rows", "runs-list", "approvals-history"].every((id) => !document.getElementById(id).children.length)),
    "signing out leaves nothing of what the user saw in the page");

}

// A standard user (alice) with a scripted model: a run that gets stuck is guided from Ask; a working
// run is cancelled from Runs; an owner-only query is refused in the API's words.
async function guidanceScenario(page) {
  step = "sign in as alice";
  await page.goto(cfg.url, { waitUntil: "load" });
  await page.type("#token", cfg.token);
  await page.keyboard.press("Enter");
  await waitText(page, "#who", "alice");
  check((await text(page, "#who")).includes("standard"), "the header shows the user's role");

  step = "guide a stuck run";
  await go(page, "ask");
  await page.type("#goal", "Read my notes files and tell me what they say");
  await page.click("#ask-submit");
  await waitText(page, ".ev-status", "needs_guidance");
  await page.waitForSelector(".ev-status form input", WAIT);
  await shot(page, "ask-guidance");
  await page.type(".ev-status form input", "Look at the task list instead");
  await page.click(".ev-status form button");
  await waitText(page, ".ev-end", "completed");
  await waitText(page, ".ev-action", "task_list");
  check(true, "the guided run went on and completed");

  step = "cancel a working run from Runs";
  const started = await fetch(new URL("/v1/runs", cfg.url), {
    method: "POST", headers: { Authorization: "Bearer " + cfg.token, "Content-Type": "application/json" },
    body: JSON.stringify({ goal: "Sleep a while, then sleep again and tell me about it" }),
  });
  check(started.status === 202, "a run started through the API (" + started.status + ")");
  const runId = (await started.json()).run_id;
  await go(page, "runs");
  await page.waitForSelector(`#runs-list button[data-run="${runId}"]`, WAIT);
  await page.click(`#runs-list button[data-run="${runId}"]`);
  await page.waitForSelector("#run-detail button.danger", WAIT);
  await page.click("#run-detail button.danger");
  await waitText(page, "#run-detail .state", "cancelled");
  await waitText(page, "#run-detail .error", "RUN_CANCELLED");
  await shot(page, "runs-cancelled");

  step = "an owner-only query";
  await go(page, "audit");
  await page.type("#audit-user", "owner");
  await page.click("#audit-filter button");
  await waitText(page, "#audit-error", "FORBIDDEN: only owners may read other users' audit records");
  check(true, "the API's refusal is shown in its words");
}

async function signInWith(page, token) {
  if (await page.$eval("#sign-out", (e) => !e.hidden)) {
    await page.click("#sign-out");
    await page.waitForSelector("#signin:not([hidden])", WAIT);
  }
  await page.$eval("#token", (e) => { e.value = ""; });
  await page.type("#token", token);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#app:not([hidden])", WAIT);
}

// What each token's scopes allow (call only; call and approve; the owner's every scope), and what
// the skills and health pages say about isolation: a plugin in its sandboxed runner process, its
// crash count as it crashes, and its quarantine.
async function scopesScenario(page) {
  step = "sign in with a call-only token";
  await page.goto(cfg.url, { waitUntil: "load" });
  await signInWith(page, cfg.call_token);
  await waitText(page, "#who-scopes", "call");
  check((await text(page, "#who-scopes")) === "call", "the header shows the token's one scope");
  check((await text(page, "#who")).includes("standard"), "an owner's token without admin acts as a standard user");
  check(await page.$eval('[data-needs="admin"]', (e) => e.hidden), "the owners' every-skill switch is hidden without admin");

  step = "a call-only token sees no approve buttons";
  await go(page, "ask");
  await page.type("#goal", "Create a task to call the dentist");
  await page.click("#ask-submit");
  await page.waitForSelector(".approval-card .no-approve", WAIT);
  await waitText(page, ".approval-card .preview", "call the dentist");
  check(await page.$(".approval-card button") === null, "no approve or reject button in the run");
  check((await text(page, ".approval-card .no-approve")).includes("lacks the approve scope"), "the card says which scope is missing");
  await go(page, "approvals");
  await page.waitForSelector("#approvals-pending li[data-approval]", WAIT);
  await page.waitForSelector("#approvals-pending .no-approve", WAIT);
  check(await page.$("#approvals-pending button") === null, "no approve or reject button in the inbox");
  await shot(page, "scopes-call-only");
  const pendingId = await page.$eval("#approvals-pending li[data-approval]", (e) => e.dataset.approval);
  // Trying anyway, through the console's own API client: the refusal is the API's.
  const refusal = await page.evaluate((id) => api("POST", "/v1/approvals/" + id + "/approve").then(() => "approved", (e) => String(e)), pendingId);
  check(refusal.startsWith("MISSING_SCOPE: ") && refusal.includes("approve"), "approving anyway is refused in the API's words: " + refusal);

  step = "a call,approve token approves another token's call";
  await signInWith(page, cfg.approve_token);
  await waitText(page, "#who-scopes", "call, approve");
  await go(page, "approvals");
  await page.waitForSelector(`#approvals-pending li[data-approval="${pendingId}"] button.approve`, WAIT);
  await page.click(`#approvals-pending li[data-approval="${pendingId}"] button.approve`);
  await waitText(page, "#approvals-history li", pendingId);
  await waitText(page, "#status", "resumed");

  step = "the token that asked cannot approve its own call";
  await go(page, "ask");
  await page.$eval("#goal", (e) => { e.value = ""; });
  await page.type("#goal", "Create a task to water the plants");
  await page.click("#ask-submit");
  await page.waitForSelector(".approval-card .approve", WAIT);
  await page.click(".approval-card .approve");
  await waitText(page, ".approval-card .error", "SELF_APPROVAL: ");
  check(await page.$eval(".approval-card .approve", (b) => !b.disabled), "after the refusal the buttons work again");
  await shot(page, "scopes-self-approval");

  step = "skills: isolation, permissions, crashes, quarantine";
  await signInWith(page, cfg.token);
  await waitText(page, "#who-scopes", "call, approve, admin");
  await go(page, "skills");
  check(await page.$eval('[data-needs="admin"]', (e) => !e.hidden), "the owner sees the every-skill switch");
  await page.waitForSelector('[data-plugin="hostile"][data-isolation="process"]', WAIT);
  await waitText(page, '[data-plugin="hostile"] [data-fact="isolation"]', "process");
  await waitText(page, '[data-plugin="hostile"] [data-fact="permissions"]', "none declared");
  check((await text(page, '[data-plugin="hostile"] [data-fact="sandbox"]')).length > 0, "the sandbox is described");
  await waitText(page, '[data-plugin="hostile"] [data-fact="crashes"]', "0 in the last");
  await waitText(page, '[data-plugin="fs"] [data-fact="isolation"]', "in process");
  const crash = () => fetch(new URL("/v1/skills/segfault/call", cfg.url), {
    method: "POST", headers: { Authorization: "Bearer " + cfg.token, "Content-Type": "application/json" }, body: "{}",
  }).then((r) => r.json());
  const first = await crash();
  check(first.error && first.error.code === "PLUGIN_CRASHED", "the first call crashes the runner");
  await waitText(page, '[data-plugin="hostile"] [data-fact="crashes"]', "1 in the last");
  await page.$eval('[data-plugin="hostile"]', (e) => e.scrollIntoView());
  await shot(page, "skills-isolation", false);
  const second = await crash();
  check(second.error && second.error.code === "PLUGIN_CRASHED", "the second call crashes it again");
  await page.waitForSelector('#skills-failures [data-failure="hostile"][data-state="quarantined"]', WAIT);
  await waitText(page, '#skills-failures [data-failure="hostile"]', "PLUGIN_QUARANTINED: ");
  await waitText(page, '#skills-failures [data-failure="hostile"]', "crashed 2 times");
  check(await page.$('[data-plugin="hostile"]') === null, "the quarantined plugin's skills left the catalog");
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "skills-quarantined", false);

  step = "health: what the sandbox enforces";
  await go(page, "health");
  await page.waitForSelector('#health-ready [data-check="isolation"]', WAIT);
  await waitText(page, '#health-ready [data-check="isolation"] li[data-plugin="echo"]', "process: ");
  await page.waitForSelector('#health-metrics dd[data-metric="skillhost_plugin_crashes_total"]', WAIT);
  check((await text(page, '#health-metrics dd[data-metric="skillhost_plugin_crashes_total"]')) === "2", "the crash metric counts both crashes");
  await shot(page, "health-isolation");

  step = "labels and a narrow screen";
  await checkLabelsAndNarrowScreen(page, ["skills", "health", "approvals"]);
}

let page = null;
try {
  page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 800 });
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));

  if (cfg.scenario === "guidance") await guidanceScenario(page);
  else if (cfg.scenario === "scopes") await scopesScenario(page);
  else await ownerScenario(page);

  const refused = problems.filter((p) => /Content Security Policy|Refused to/i.test(p));
  check(refused.length === 0, "no CSP refusals: " + refused.join(" | "));
  console.log("all console checks passed");
} catch (e) {
  console.error(`FAILED at step "${step}": ${e.message}`);
  if (problems.length) console.error("page console errors:\n  " + problems.join("\n  "));
  process.exitCode = 1;
  if (page) await shot(page, "failure").catch(() => {});
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
