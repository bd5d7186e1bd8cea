// The sign page's lookup: the stored request by id, expired or not, so the page can say "expired" for a
// request it knows (the JSON route answers 404 for both; see adapters/db/sign-requests.ts).
import type { Kysely } from "kysely";
import type { Database, SignRequestRow } from "../../adapters/db/api-schema.js";
import { SIGN_REQUEST_ID } from "../../adapters/db/sign-requests.js";

export async function findSignRequest(db: Kysely<Database>, id: string): Promise<SignRequestRow | undefined> {
  if (!SIGN_REQUEST_ID.test(id)) return undefined;
  return db.selectFrom("sign_request").selectAll().where("id", "=", id).executeTakeFirst();
}
