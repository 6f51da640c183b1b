/**
 * Leader election on a distlock lock: {@link io.github.distlock.leader.LeaderElection} makes this instance a candidate
 * for an election's lock, on any engine; the leader's epoch is that lock's fencing token.
 */
@NullMarked
package io.github.distlock.leader;

import org.jspecify.annotations.NullMarked;
