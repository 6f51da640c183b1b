package io.github.distlock.torture.check;

/**
 * Something the run must never show.
 *
 * @param kind what rule was broken
 * @param detail which events broke it
 */
public record Violation(Kind kind, String detail) {

	/** The rules. */
	public enum Kind {

		OVERLAP_WITHOUT_FAULT("holds of one key overlapped with no fault to force it"),

		OVERLAP_UNNOTICED("an overlap's older holder was neither told of its loss nor fenced off"),

		OVERLAP_UNREPORTED("a second holder got the lock before the first was told of its loss"),

		TOKEN_NOT_INCREASING("a token did not increase over an earlier acquisition of the same key"),

		UNRELEASED("an acquisition was never released nor reported lost"),

		WORKER_UNFINISHED("a worker neither finished its load nor was killed"),

		KILLED_HOLDER_LOCK_KEPT("a killed worker's lock was not freed within one lease (or ZooKeeper session timeout)"),

		KEYS_LEFT("locks were left in the store at the end (Redis keys, table rows, ZooKeeper nodes)"),

		FENCE_OUT_OF_ORDER("the fence accepted a write with a smaller token than one it had accepted"),

		FENCE_REJECTION_UNNOTICED("the fence rejected a write of a holder that was never told of its loss"),

		CALL_TOO_LONG("a call waited or released longer than its bound"),

		NO_RECOVERY("no lock was acquired after the lock store came back"),

		LOSS_UNJUSTIFIED("a loss was reported that no record shows and no fault that takes locks explains");

		private final String description;

		Kind(String description) {
			this.description = description;
		}

		public String description() {
			return this.description;
		}

	}

}
