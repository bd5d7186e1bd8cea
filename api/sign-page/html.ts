// The sign page's HTML, rendered on the server. Every dynamic text goes through `escapeHtml`; the request's
// data for the script goes in a JSON block with `<` escaped, so no stored value can end it. The live page
// carries the calls; an expired one shows the steps in words only, with the warning and no button (its
// calldata must not be reused).
import type { StepDescription } from "../../domain/bundles/describe.js";
import { bundleRules } from "../../domain/products/index.js";
import { formatUnits } from "viem";
import type { SignPageQuote, SignPageShortfall, SignPageView } from "../../usecases/answers/sign-requests.js";
import { amountHtml, sentenceHtml } from "./amounts.js";
import { SIGN_PAGE_SCRIPT, SIGN_PAGE_STYLE } from "./script.js";
import { CHAIN_ID } from "../../domain/chain.js";
import { escapeHtml, PAGE_HEAD } from "../../domain/html.js";

/** JSON for a `<script type="application/json">` block: `<`, `>`, `&` and the line separators escaped. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The bundle kind's title, as its product declares it (domain/products/). */
const kindTitle = (kind: string) => bundleRules(kind)?.title ?? kind;
/** "2025-06-01 12:10:00 UTC": a time for a person to read. */
const readableTime = (date: Date) =>
  date
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");

function page(title: string, body: string, script: string | null): string {
  return `${PAGE_HEAD}
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${SIGN_PAGE_STYLE}</style>
</head>
<body>
${body}
${script ?? ""}
</body>
</html>
`;
}

/** A swap's quote beside the call's minimum: what is expected, the price impact, and what the minimum is. */
function quoteLines(q: SignPageQuote): string[] {
  const symbol = escapeHtml(q.symbol);
  const impact = `${(q.priceImpactBps / 100).toFixed(2)}%`;
  const slippage = q.slippageBps === undefined ? "" : ` (${(q.slippageBps / 100).toFixed(2)}% slippage allowed)`;
  return [
    `<li class="quote">Expected: ${amountHtml(q.expectedOut)} ${symbol} after the fee; price impact ${escapeHtml(impact)}.</li>`,
    `<li class="quote">The minimum, ${amountHtml(q.minimumOut)} ${symbol}, is the least the swap accepts${escapeHtml(slippage)}; below it the swap reverts.</li>`,
  ];
}

function stepItem(step: StepDescription, index: number, live: boolean, quote?: SignPageQuote): string {
  const extra = quote && step.action === "Swap" ? quoteLines(quote) : [];
  const details = [...step.details.map((d) => `<li>${sentenceHtml(d)}</li>`), ...extra].join("");
  const to = step.toName ? `${escapeHtml(step.toName)} <code>${escapeHtml(step.to)}</code>` : `<code>${escapeHtml(step.to)}</code>`;
  return `<li class="step" data-step="${index}" data-state="${live ? "ready" : "expired"}">
<h2><span class="tag">${escapeHtml(step.action)}</span>Step ${index + 1}: ${sentenceHtml(step.summary)}</h2>
${details ? `<ul>${details}</ul>` : ""}
<div class="to">Calls ${to}</div>
<div><span class="step-status">${live ? "Not sent" : "Not sent (expired)"}</span><span class="step-hash"></span></div>
</li>`;
}

const units = (value: bigint, s: SignPageShortfall) =>
  s.decimals === undefined ? `${amountHtml(value.toString())} base units of` : amountHtml(formatUnits(value, s.decimals));

/** The balance shortfall in words, above the steps: what the wallet holds, what the bundle needs, what to add. */
function shortfallWarning(s: SignPageShortfall): string {
  const symbol = escapeHtml(s.symbol);
  const who = s.holderIsOwner ? "Your wallet holds" : `Your agent account <code>${escapeHtml(s.holder)}</code> holds`;
  const where = s.holderIsOwner ? "your wallet" : "that account";
  return `<div id="balance-warning" class="warning" role="alert">${who} <span id="balance-actual">${units(s.actual, s)}</span> ${symbol}; this bundle needs ${units(s.expected, s)} ${symbol}. Add ${units(s.expected - s.actual, s)} ${symbol} to ${where} before sending: sent now, the bundle would fail on chain. The button turns on once the balance is there.</div>`;
}

/** The button's words while the balance is short (the script restores the normal words once it is there). */
const shortButton = (s: SignPageShortfall) => `Not enough ${s.symbol} to send: add it first`;

/** The page of a stored request: live (with the button and the script) or expired (the warning only). */
export function renderSignPage(view: SignPageView): string {
  const live = view.secondsLeft > 0 && view.walletSendCalls !== undefined;
  const title = `Sign: ${kindTitle(view.kind)}`;
  const steps = view.steps.map((s, i) => stepItem(s, i, live, view.quote)).join("\n");
  const short = live ? view.shortfall : undefined;
  const sendWords = `Connect wallet and send ${view.steps.length === 1 ? "the step" : `all ${view.steps.length} steps`}`;
  const expiry = escapeHtml(readableTime(view.expiresAt));
  const warning = `<div id="expired-warning" class="warning" role="alert"${live ? " hidden" : ""}>This request has expired (at ${expiry}). Its calls must not be sent: ask your agent to prepare it again.</div>`;
  const body = `<main>
<h1>${escapeHtml(kindTitle(view.kind))}</h1>
<p class="meta">For the wallet <code id="owner">${escapeHtml(view.owner)}</code> on chain ${CHAIN_ID}</p>
<p class="meta">Prepared ${escapeHtml(readableTime(view.createdAt))}; valid until <time id="expires-at" datetime="${escapeHtml(view.expiresAt.toISOString())}">${expiry}</time> <span id="countdown">${live ? "" : "(expired)"}</span></p>
${warning}
${short ? shortfallWarning(short) : ""}
<p class="notice">The service never holds keys: nothing happens until your wallet signs. Check each step here and again in your wallet. Every approval is for the exact amount, and everything is paid to your wallet.</p>
<ol class="steps">
${steps}
</ol>
${live ? `<button id="send" type="button" disabled>${escapeHtml(short ? shortButton(short) : sendWords)}</button>` : ""}
<p id="status" role="status" aria-live="polite">${live ? "" : "Nothing can be sent from this page."}</p>
</main>`;
  const script = live
    ? `<script type="application/json" id="sign-data">${jsonForScript({
        owner: view.owner,
        secondsLeft: view.secondsLeft,
        walletSendCalls: view.walletSendCalls,
        sendWords,
        shortfall: short ? { token: short.token, holder: short.holder, expected: short.expected.toString() } : null,
      })}</script>
<script>${SIGN_PAGE_SCRIPT}</script>`
    : null;
  return page(title, body, script);
}

/** The page of an id the service does not know (never stored, or removed after it expired). */
export function renderUnknownPage(): string {
  return page(
    "Sign request not found",
    `<main>
<h1>Sign request not found</h1>
<div class="warning" role="alert">This sign request is unknown or has expired. Prepared requests last 10 minutes: ask your agent to prepare it again.</div>
</main>`,
    null,
  );
}
