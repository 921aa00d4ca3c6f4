/* One value per key, made the first time the key is asked for (per pool, per key store, per policy). */

interface KeyedStore<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** The value of `key` in `store`, made by `make` and kept there when it has none yet. */
export function getOrMake<K, V>(store: KeyedStore<K, V>, key: K, make: () => V): V {
  let value = store.get(key);
  if (value === undefined) {
    value = make();
    store.set(key, value);
  }
  return value;
}
