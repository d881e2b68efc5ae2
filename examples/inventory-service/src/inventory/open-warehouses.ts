/** Injection token of the set of warehouses this deployment takes work for. */
export const OPEN_WAREHOUSES = Symbol('OPEN_WAREHOUSES');

/** Used when `INVENTORY_WAREHOUSES` is not set. */
export const DEFAULT_WAREHOUSES = ['berlin', 'lyon'] as const;

/**
 * The open warehouses, from `INVENTORY_WAREHOUSES` (comma-separated names,
 * default `berlin,lyon`). Deployment configuration, which may differ from one
 * start to the next: that is why only a guard reads it, at admission, and
 * never an apply step, which must decide the same way on every replay.
 */
export function openWarehousesFrom(env: NodeJS.ProcessEnv): ReadonlySet<string> {
  const listed = env.INVENTORY_WAREHOUSES?.split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  return new Set(listed && listed.length > 0 ? listed : DEFAULT_WAREHOUSES);
}
