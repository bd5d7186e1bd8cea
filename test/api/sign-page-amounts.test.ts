// The sign page's amounts: about six significant digits (half up, on the decimal string), whole digits
// never dropped, and the exact figure kept for hover and tap.
import { describe, expect, it } from "vitest";
import { amountHtml, roundDecimal, sentenceHtml } from "../../api/sign-page/amounts.js";

describe("roundDecimal", () => {
  it.each([
    ["0.008007448092901693", "0.00800745"],
    ["1234.56789", "1234.57"],
    ["1234567.891", "1234568"],
    ["999999.5", "1000000"],
    ["0.0000001234564", "0.000000123456"],
    ["25.5", "25.5"],
    ["0", "0"],
    ["12.3000001", "12.3"],
    ["-0.1234567", "-0.123457"],
  ])("%s -> %s", (exact, rounded) => expect(roundDecimal(exact)).toBe(rounded));
});

describe("amounts in HTML", () => {
  it("wraps a rounded amount with its exact figure; a short one stays plain", () => {
    expect(amountHtml("0.008007448092901693")).toBe(
      '<span class="amount" tabindex="0" title="exactly 0.008007448092901693" data-exact="0.008007448092901693">0.00800745</span>',
    );
    expect(amountHtml("1234567.5")).toContain(">1,234,568</span>");
    expect(amountHtml("25.5")).toBe("25.5");
  });

  it("rounds the decimals of a sentence, not hex, times or a sentence's full stop, and escapes the rest", () => {
    const html = sentenceHtml("Swap 1,234.567891 USDG for at least 0.008007448092901693 WETH <at> 0x12ab.34cd, at 12:10:00 and 2.5.");
    expect(html).toContain("Swap <span");
    expect(html).toContain(">1,234.57</span> USDG");
    expect(html).toContain(">0.00800745</span> WETH &lt;at&gt; 0x12ab.34cd, at 12:10:00 and 2.5.");
  });
});
