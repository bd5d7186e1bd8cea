// Amounts for a person to read on the sign page: about six significant digits, the exact figure on hover
// (title) or tap/focus (the style shows `data-exact` beside it), since 0.008007448092901693 WETH reads as
// noise. Whole digits are never dropped: only a fraction is rounded (half up), on the decimal string.
import { groupDigits } from "../../domain/bundles/describe.js";
import { escapeHtml } from "../../domain/html.js";

const SIGNIFICANT = 6;

/** "0.008007448092901693" -> "0.00800745"; "1234.56789" -> "1234.57"; "1234567.8" -> "1234568". */
export function roundDecimal(exact: string, significant = SIGNIFICANT): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(exact);
  if (!m) return exact;
  const [, sign = "", whole = "0", fraction = ""] = m;
  const wholeDigits = whole.replace(/^0+/, "").length;
  const lead = fraction.search(/[1-9]/);
  const keep = wholeDigits >= significant ? 0 : wholeDigits > 0 ? significant - wholeDigits : lead < 0 ? 0 : lead + significant;
  if (fraction.length <= keep) return exact;
  const scaled = BigInt(whole + fraction.slice(0, keep)) + (Number(fraction[keep]) >= 5 ? 1n : 0n);
  const digits = scaled.toString().padStart(keep + 1, "0");
  const head = digits.slice(0, digits.length - keep);
  const tail = digits.slice(digits.length - keep).replace(/0+$/, "");
  return `${sign}${head}${tail ? `.${tail}` : ""}`;
}

/** One amount as HTML: rounded and grouped, with the exact figure to hover or tap when it differs. */
export function amountHtml(exact: string): string {
  const rounded = roundDecimal(exact);
  if (rounded === exact) return escapeHtml(groupDigits(exact));
  const full = escapeHtml(groupDigits(exact));
  return `<span class="amount" tabindex="0" title="exactly ${full}" data-exact="${full}">${escapeHtml(groupDigits(rounded))}</span>`;
}

/** A decimal with a fraction in a sentence ("1,234.5678 USDG"), not part of a word, hex or a longer number. */
const DECIMAL = /(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)\.(\d+)(?!\w|\.\d|,\d)/g;

/** A sentence as HTML (escaped) with every long decimal in it rounded as `amountHtml` does. */
export function sentenceHtml(text: string): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(DECIMAL)) {
    out += escapeHtml(text.slice(last, m.index));
    out += amountHtml(`${m[1]!.replace(/,/g, "")}.${m[2]}`);
    last = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(last));
}
