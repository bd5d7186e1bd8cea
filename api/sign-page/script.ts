// The sign page's one script: plain JS run in the person's browser, no bundler. It reads the request from
// the page's JSON data block, connects the injected wallet (EIP-1193), checks the account and the chain,
// and sends the calls with wallet_sendCalls (EIP-5792 v2), following them with wallet_getCallsStatus.
// Where the wallet lacks wallet_sendCalls (4200, -32601 or "not supported"), it sends each call with
// eth_sendTransaction in order (approvals first, as stored), waiting for each receipt
// (eth_getTransactionReceipt through the wallet) before the next. Each step shows its status.
// A balance shortfall (the server's warning) keeps the button off; the script re-reads the balance through the
// wallet (eth_call of balanceOf, on chain 4663 only) every few seconds and turns it on once funded.
// The countdown runs from the seconds the server gave, so a wrong clock on the person's computer does
// not change when the page says "expired". The Content-Security-Policy allows this script by its hash.
import { createHash } from "node:crypto";
import { CHAIN_ID } from "../../domain/chain.js";

export const SIGN_PAGE_SCRIPT = `(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("sign-data").textContent);
  var calls = data.walletSendCalls.calls;
  var button = document.getElementById("send");
  var status = document.getElementById("status");
  var countdown = document.getElementById("countdown");
  var warning = document.getElementById("expired-warning");
  var deadline = Date.now() + data.secondsLeft * 1000;
  var started = false;
  var finished = false;
  var POLL_MS = 1000;
  var BALANCE_MS = 3000;
  var shortfall = data.shortfall;
  var balanceWarning = document.getElementById("balance-warning");

  function say(text, kind) {
    status.textContent = text;
    status.setAttribute("data-kind", kind || "info");
  }
  function mark(i, state, text, hash) {
    var row = document.querySelector('[data-step="' + i + '"]');
    if (!row) return;
    row.setAttribute("data-state", state);
    row.querySelector(".step-status").textContent = text;
    var link = row.querySelector(".step-hash");
    link.textContent = hash ? "Transaction " + hash : "";
  }
  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function expired() { return Date.now() >= deadline; }

  function showExpired() {
    document.body.setAttribute("data-expired", "true");
    warning.hidden = false;
    button.hidden = true;
    countdown.textContent = "(expired)";
    say("This request has expired. Do not send its calls: ask your agent to prepare it again.", "error");
  }
  function tick() {
    if (finished) return;
    var left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    if (left === 0) {
      if (!started) showExpired();
      return;
    }
    countdown.textContent = "(expires in " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + ")";
    setTimeout(tick, 1000);
  }

  function codeOf(e) { return e && typeof e.code === "number" ? e.code : e && e.data && typeof e.data.code === "number" ? e.data.code : undefined; }
  function messageOf(e) { return (e && (e.message || (e.data && e.data.message))) || String(e); }
  function unsupported(e) {
    var code = codeOf(e);
    return code === 4200 || code === -32601 || /not supported|unsupported|does not exist|not available/i.test(messageOf(e));
  }

  async function request(method, params) {
    return window.ethereum.request(params === undefined ? { method: method } : { method: method, params: params });
  }

  async function followBatch(id) {
    for (var i = 0; i < calls.length; i++) mark(i, "sent", "Sent with the others; waiting for the chain");
    for (;;) {
      var s = await request("wallet_getCallsStatus", [id]);
      var code = typeof s.status === "number" ? s.status : s.status === "CONFIRMED" ? 200 : 100;
      if (code >= 200) {
        var receipts = s.receipts || [];
        var ok = code === 200 && receipts.every(function (r) { return r.status === "0x1" || r.status === 1 || r.status === "success"; });
        for (var j = 0; j < calls.length; j++) {
          var receipt = receipts.length === calls.length ? receipts[j] : receipts[0];
          var good = receipt ? receipt.status === "0x1" || receipt.status === 1 || receipt.status === "success" : ok;
          mark(j, good ? "confirmed" : "failed", good ? "Confirmed" : "Failed", receipt && receipt.transactionHash);
        }
        if (!ok) throw new Error("The wallet reports the calls failed (status " + code + "). Check your wallet's activity.");
        return;
      }
      await sleep(POLL_MS);
    }
  }

  async function receiptOf(hash) {
    for (;;) {
      var r = await request("eth_getTransactionReceipt", [hash]);
      if (r) return r;
      await sleep(POLL_MS);
    }
  }

  async function oneByOne(from) {
    for (var i = 0; i < calls.length; i++) {
      var c = calls[i];
      mark(i, "waiting", "Confirm it in your wallet");
      say("Step " + (i + 1) + " of " + calls.length + ": confirm it in your wallet.", "info");
      var hash = await request("eth_sendTransaction", [{ from: from, to: c.to, data: c.data, value: c.value }]);
      mark(i, "sent", "Sent; waiting for the chain", hash);
      var r = await receiptOf(hash);
      if (!(r.status === "0x1" || r.status === 1)) {
        mark(i, "failed", "Failed on chain", hash);
        throw new Error("Step " + (i + 1) + " failed on chain; the steps after it were not sent.");
      }
      mark(i, "confirmed", "Confirmed", hash);
    }
  }

  async function recheckBalance() {
    if (!shortfall || started || expired()) return;
    try {
      if (window.ethereum && typeof window.ethereum.request === "function") {
        var chainId = await request("eth_chainId");
        if (parseInt(chainId, 16) === parseInt(data.walletSendCalls.chainId, 16)) {
          var holder = shortfall.holder.toLowerCase().replace(/^0x/, "").padStart(64, "0");
          var held = await request("eth_call", [{ to: shortfall.token, data: "0x70a08231" + holder }, "latest"]);
          if (BigInt(held) >= BigInt(shortfall.expected)) {
            shortfall = null;
            balanceWarning.hidden = true;
            button.textContent = data.sendWords;
            button.disabled = false;
            say("The balance is there now: you can send.", "info");
            return;
          }
        }
      }
    } catch (e) { /* a wallet that cannot read: keep the warning; a reload re-checks on the server */ }
    setTimeout(recheckBalance, BALANCE_MS);
  }

  async function send() {
    if (shortfall) return;
    if (started || expired()) { if (!started) showExpired(); return; }
    if (!window.ethereum || typeof window.ethereum.request !== "function") {
      say("No wallet found in this browser. Open this page in a browser with your wallet, or send the calls from your own wallet.", "error");
      return;
    }
    button.disabled = true;
    var sent = false;
    try {
      say("Connecting your wallet…", "info");
      var accounts = await request("eth_requestAccounts");
      var from = (accounts || []).find(function (a) { return String(a).toLowerCase() === data.owner.toLowerCase(); });
      if (!from) throw new Error("This request is for the wallet " + data.owner + ". Connect that account (connected: " + ((accounts || []).join(", ") || "none") + ").");
      var chainId = await request("eth_chainId");
      if (parseInt(chainId, 16) !== parseInt(data.walletSendCalls.chainId, 16)) {
        try { await request("wallet_switchEthereumChain", [{ chainId: data.walletSendCalls.chainId }]); }
        catch (e) { throw new Error("Switch your wallet to chain ${CHAIN_ID} (" + data.walletSendCalls.chainId + ") and try again."); }
      }
      if (expired()) { showExpired(); return; }
      started = true;
      try {
        say("Confirm the " + calls.length + " calls in your wallet (sent together).", "info");
        var answer = await request("wallet_sendCalls", [data.walletSendCalls]);
        sent = true;
        say("Sent. Waiting for the chain…", "info");
        await followBatch(typeof answer === "string" ? answer : answer.id);
      } catch (e) {
        if (sent || !unsupported(e)) throw e;
        say("Your wallet cannot send calls together; sending them one by one, approvals first.", "info");
        sent = true;
        await oneByOne(from);
      }
      finished = true;
      button.hidden = true;
      countdown.textContent = "(sent)";
      say("Done: every step is confirmed on chain.", "ok");
    } catch (e) {
      if (codeOf(e) === 4001) say(sent ? "You rejected a step in your wallet. The steps before it were sent; the rest were not." : "You rejected the request in your wallet. Nothing was sent.", "error");
      else say(messageOf(e), "error");
      if (!sent) { started = false; button.disabled = false; }
    }
  }

  button.addEventListener("click", function () { send(); });
  button.disabled = Boolean(shortfall);
  if (expired()) showExpired(); else { tick(); recheckBalance(); }
})();
`;

export const SIGN_PAGE_STYLE = `
:root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; }
body { max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
.meta { color: #57606a; margin: .2rem 0; }
code { font-size: .85em; word-break: break-all; }
ol.steps { padding: 0; list-style: none; }
.step { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: .8rem 1rem; margin: .7rem 0; }
.step h2 { font-size: 1rem; margin: 0 0 .3rem; }
.step .tag { display: inline-block; font-size: .75rem; text-transform: uppercase; letter-spacing: .04em; background: #eaeef2; border-radius: 4px; padding: .05rem .4rem; margin-right: .4rem; }
.step ul { margin: .3rem 0; padding-left: 1.1rem; color: #424a53; }
.step .to { color: #57606a; font-size: .9rem; }
.step-status { font-weight: 600; }
.step-hash { display: block; font-size: .8rem; color: #57606a; word-break: break-all; }
.step[data-state="confirmed"] { border-color: #1a7f37; }
.step[data-state="confirmed"] .step-status { color: #1a7f37; }
.step[data-state="failed"] { border-color: #cf222e; }
.step[data-state="failed"] .step-status { color: #cf222e; }
.warning { background: #fff1e5; border: 1px solid #bc4c00; border-radius: 8px; padding: .8rem 1rem; font-weight: 600; }
.amount { border-bottom: 1px dotted currentColor; cursor: help; }
.amount:focus::after { content: " (exactly " attr(data-exact) ")"; font-weight: normal; }
.step li.quote { color: #1b1f24; }
.notice { color: #57606a; font-size: .9rem; }
button#send { font-size: 1.05rem; padding: .6rem 1.4rem; border-radius: 6px; border: 0; background: #1f6feb; color: #fff; cursor: pointer; }
button#send:disabled { background: #8c959f; cursor: default; }
#status { margin: .8rem 0; min-height: 1.4em; }
#status[data-kind="error"] { color: #cf222e; font-weight: 600; }
#status[data-kind="ok"] { color: #1a7f37; font-weight: 600; }
body[data-expired="true"] .step { opacity: .6; }
`;

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The page's Content-Security-Policy: its own script and style (by hash), nothing else; no network, frames or forms. */
export const SIGN_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(SIGN_PAGE_SCRIPT)}`,
  `style-src ${sha256(SIGN_PAGE_STYLE)}`,
  "img-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
