// Creates the database named in a Postgres URL when it does not exist (a fresh machine has none).
import postgres from "postgres";

export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1)) || "postgres";
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select 1 as found from pg_database where datname = ${name}`;
    if (!row) await sql.unsafe(`create database "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    // Two processes may race to create it (npm start starts the API and a worker at once); the loser is
    // told it exists (42P04) or, when both passed the check at once, hits the catalog's unique index (23505).
    const code = (err as { code?: string }).code;
    if (code !== "42P04" && code !== "23505") throw err;
  } finally {
    await sql.end();
  }
}
