/**
 * Runs `deleteBatch` (which deletes at most `batch` rows, in a statement or transaction of its own) until one
 * deletes fewer than `batch`: the way every clean-up and purge keeps a large delete from holding the store's
 * write lock (SQLite) or many row locks (PostgreSQL) in one go. Resolves with how many rows went.
 */
export async function deleteInBatches(
  batch: number,
  deleteBatch: (batch: number) => Promise<number>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(batch);
    total += deleted;
    if (deleted < batch) return total;
  }
}
