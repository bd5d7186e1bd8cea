// ladder-strategy from the wallet: open 1-16 parts on a listed, open market (422 UNKNOWN_TOKEN, NOT_LISTED,
// MARKET_NOT_OPEN; the builder's part-naming refusals NO_REFERENCE, WRONG_SIDE, FIRST_TOO_SMALL,
// FOLLOW_UP_TOO_SMALL, NO_TRIP_HEADROOM with {part, minimum, unit} from the chain's numbers now), or
// close, setRepeat, collect the owner's own ladder (404 NOT_FOUND, 422 NOT_YOUR_LADDER, LADDER_CLOSED,
// NOTHING_TO_COLLECT). Via account (the agent account's LADDER call) is not served by this slice (503).
import type { Address } from "viem";
import { ladderStrategyAbi } from "../../../abis/index.js";
import { buildLadderStrategy } from "../../domain/bundles/index.js";
import { ApiError } from "../../domain/errors.js";
import type { Resolver } from "../types.js";
import { build, contract, invalid, marketToken, priceNow, same, toBaseUnits, toId, toPriceX18, usdgOf } from "./common.js";

export const resolveLadderStrategy: Resolver<"ladder-strategy"> = async (ctx, body, owner) => {
  if (body.via === "account") {
    throw new ApiError("UNAVAILABLE", "ladder-strategy via account is not prepared yet: use via wallet");
  }
  const ladder = contract(ctx, "ladderStrategy");
  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    ctx.client.readContract({ address: ladder, abi: ladderStrategyAbi, functionName: functionName as never, args: args as never }) as Promise<T>;
  const { action } = body;
  if (action === "open") {
    if (body.token === undefined) throw invalid("token", "is required for action open");
    if (body.legs === undefined) throw invalid("legs", "is required for action open");
    const token = marketToken(ctx, body.token);
    const [listed, open] = await Promise.all([read<boolean>("isListed", [token.address]), read<boolean>("marketOpen", [token.address])]);
    if (!listed) throw new ApiError("NOT_LISTED", `${token.symbol} is not listed for ladder strategies`, { token: token.address });
    if (!open) throw new ApiError("MARKET_NOT_OPEN", `${token.symbol}'s ladder market is not open`, { token: token.address });
    const sellFirst = body.sellFirst ?? false;
    const legs = body.legs.map((l, i) => ({
      buyPriceX18: toPriceX18(`legs[${i}].buyPrice`, l.buyPrice),
      sellPriceX18: toPriceX18(`legs[${i}].sellPrice`, l.sellPrice),
      amount: toBaseUnits(`legs[${i}].amount`, l.amount, sellFirst ? token.decimals : 6),
    }));
    const [priceX18, minFirstLegUsdg, minFollowUpUsdg, feeBps] = await Promise.all([
      priceNow(ctx, token.address),
      read<bigint>("minFirstLegUsdg"),
      read<bigint>("minFollowUpUsdg"),
      read<number>("feeBps"),
    ]);
    const bundle = build(() =>
      buildLadderStrategy({
        owner,
        ladder,
        action,
        via: "wallet",
        usdg: usdgOf(ctx),
        token: token.address,
        legs,
        sellFirst,
        repeat: body.repeat ?? false,
        oneWay: body.oneWay ?? false,
        market: { priceX18, decimals: token.decimals, minFirstLegUsdg, minFollowUpUsdg, feeBps },
      }),
    );
    return { bundle, priceToken: token.address, params: { priceNowX18: priceX18.toString() } };
  }

  if (body.id === undefined) throw invalid("id", `is required for action ${action}`);
  if (body.mask === undefined) throw invalid("mask", `is required for action ${action}`);
  const id = toId("id", body.id);
  const row = await ctx.reads.selectFrom("ladder").select(["owner", "token", "state"]).where("id", "=", id).executeTakeFirst();
  if (!row) throw new ApiError("NOT_FOUND", `no ladder ${id}`);
  if (!same(row.owner, owner)) throw new ApiError("NOT_YOUR_LADDER", `ladder ${id} belongs to another wallet`);
  if (row.state === "closed") throw new ApiError("LADDER_CLOSED", `ladder ${id} is closed`);
  if (action === "collect") {
    const [tokenOut, usdgOut] = await read<readonly [bigint, bigint]>("collectable", [id]);
    const wanted = (body.mask & 1 ? tokenOut : 0n) + (body.mask & 2 ? usdgOut : 0n);
    if (wanted === 0n) throw new ApiError("NOTHING_TO_COLLECT", `ladder ${id} has nothing to collect on the sides of mask ${body.mask}`);
  }
  const bundle = build(() => buildLadderStrategy({ owner, ladder, action, via: "wallet", id, mask: body.mask }));
  return { bundle, priceToken: row.token as Address, params: { state: row.state } };
};
