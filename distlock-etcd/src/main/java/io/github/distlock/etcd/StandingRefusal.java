package io.github.distlock.etcd;

import org.jspecify.annotations.Nullable;

import io.github.distlock.engine.LockEngineStatistics;

/**
 * The refusal etcd's last lock call met, in an operator's words, until a lock call succeeds again; and the count of
 * refusals.
 */
final class StandingRefusal {

	private final LockEngineStatistics statistics;

	private volatile @Nullable String sentence;

	StandingRefusal(LockEngineStatistics statistics) {
		this.statistics = statistics;
	}

	void refused(String sentence) {
		this.statistics.countRefusal();
		this.sentence = sentence;
	}

	void succeeded() {
		if (this.sentence != null) {
			this.sentence = null;
		}
	}

	/** The last refusal's sentence, or null when the last lock call succeeded. */
	@Nullable String sentence() {
		return this.sentence;
	}

}
