package io.github.distlock.actuate;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.distlock.leader.LeaderElection;
import io.github.distlock.leader.LeaderElections;
import io.github.distlock.leader.Leadership;

/**
 * An election this instance stands in, as health and the {@code distlocks} endpoint show it: whether it leads, and
 * while it does, the term's epoch (the lock's fencing token) and since when.
 *
 * @param election the election's name
 * @param leader whether this instance leads it now
 * @param epoch the current term's epoch, or null when this instance does not lead
 * @param since when the current term was granted, or null when this instance does not lead
 */
public record ElectionView(String election, boolean leader, @Nullable Long epoch, @Nullable Instant since) {

	/** Every election the instance stands in, in the order they were named; empty without elections. */
	public static List<ElectionView> of(@Nullable LeaderElections elections) {
		if (elections == null) {
			return List.of();
		}
		return elections.elections().values().stream().map(ElectionView::of).toList();
	}

	private static ElectionView of(LeaderElection election) {
		Leadership term = election.leadership();
		return (term != null) ? new ElectionView(election.election(), true, term.epoch(), term.grantedAt())
				: new ElectionView(election.election(), false, null, null);
	}

}
