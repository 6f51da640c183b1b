package io.github.distlock.redis;

/**
 * Where the token floor of a lock lives ({@code token.lua}: the last token issued, kept a while after each grant, so
 * that a replica promoted with a clock behind the old master's issues no smaller token). One key serves many locks,
 * so that no lock leaves a key of its own behind: on a single Redis or behind Sentinel, {@code <prefix>:token} for
 * every lock of the prefix; on Redis Cluster, where a script may only touch keys of one hash slot, one key per slot,
 * {@code <prefix>:{<tag>}:token}, whose tag is the smallest number that hashes to the lock's slot.
 */
final class TokenFloors {

	private final String single;

	private final String prefix;

	private final boolean cluster;

	TokenFloors(String prefix, boolean cluster) {
		this.prefix = prefix;
		this.single = prefix + ":token";
		this.cluster = cluster;
	}

	/** The floor key of the lock stored under {@code lockKey}, in its hash slot when on Redis Cluster. */
	String of(String lockKey) {
		if (!this.cluster) {
			return this.single;
		}
		return this.prefix + ":{" + SlotTags.TAGS[HashSlot.of(lockKey)] + "}:token";
	}

	/** The smallest number whose decimal digits hash to each slot; computed once, on the first cluster floor. */
	private static final class SlotTags {

		static final String[] TAGS = compute();

		private static String[] compute() {
			String[] tags = new String[HashSlot.SLOTS];
			int found = 0;
			// About 160,000 numbers cover every slot (a coupon collector's run): a few milliseconds, once.
			for (int number = 0; found < HashSlot.SLOTS; number++) {
				String tag = Integer.toString(number);
				int slot = HashSlot.of(tag);
				if (tags[slot] == null) {
					tags[slot] = tag;
					found++;
				}
			}
			return tags;
		}

	}

}
