package io.github.distlock.torture.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Finds overlapping holds of one key two ways: by the recorded intervals (every pair whose intervals intersect), and
 * by token order (an acquisition that began before the one with the next smaller token had ended).
 * <p>
 * An interval runs from the moment the section learnt it holds the lock to the end of its section, both recorded
 * inside the lock, so with a correct lock and no fault recorded intervals cannot overlap.
 */
final class OverlapFinder {

	private OverlapFinder() {
	}

	static List<Overlap> byIntervals(RunRecords records, List<Acquisition> ofOneKey) {
		List<Acquisition> byStart = new ArrayList<>(ofOneKey);
		byStart.sort(Comparator.comparingLong(Acquisition::acquiredNanos));
		List<Overlap> overlaps = new ArrayList<>();
		for (int i = 0; i < byStart.size(); i++) {
			Acquisition first = byStart.get(i);
			long firstEnd = records.believedUntil(first);
			for (int j = i + 1; j < byStart.size() && byStart.get(j).acquiredNanos() - firstEnd < 0; j++) {
				Acquisition second = byStart.get(j);
				long to = Math.min(firstEnd, records.believedUntil(second));
				if (to - second.acquiredNanos() > 0) {
					overlaps.add(ordered(first, second, second.acquiredNanos(), to));
				}
			}
		}
		return overlaps;
	}

	static List<Overlap> byTokenOrder(RunRecords records, List<Acquisition> ofOneKey) {
		List<Acquisition> byToken = new ArrayList<>(ofOneKey);
		byToken.sort(Comparator.comparingLong(Acquisition::token));
		List<Overlap> overlaps = new ArrayList<>();
		for (int i = 1; i < byToken.size(); i++) {
			Acquisition previous = byToken.get(i - 1);
			Acquisition next = byToken.get(i);
			long previousEnd = records.believedUntil(previous);
			if (next.acquiredNanos() - previousEnd < 0) {
				long from = Math.max(previous.acquiredNanos(), next.acquiredNanos());
				long to = Math.min(previousEnd, records.believedUntil(next));
				overlaps.add(new Overlap(previous, next, from, Math.max(from, to)));
			}
		}
		return overlaps;
	}

	private static Overlap ordered(Acquisition a, Acquisition b, long from, long to) {
		return (a.token() <= b.token()) ? new Overlap(a, b, from, to) : new Overlap(b, a, from, to);
	}

}
