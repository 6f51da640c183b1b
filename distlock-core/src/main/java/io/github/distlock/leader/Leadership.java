package io.github.distlock.leader;

import java.time.Instant;

/**
 * One term of this instance as the leader of an election.
 *
 * @param election the election's name
 * @param epoch the term's epoch: the fencing token of the lock the leader holds, larger than every earlier leader's
 * epoch of the same election, so a store that keeps the largest it has seen refuses a former leader's late writes
 * @param grantedAt when this instance was granted the term
 */
public record Leadership(String election, long epoch, Instant grantedAt) {
}
