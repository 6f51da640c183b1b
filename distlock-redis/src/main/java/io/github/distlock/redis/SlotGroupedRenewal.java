package io.github.distlock.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.redisson.api.RScript.ReturnType;

import io.github.distlock.LostLock;

/**
 * Renews the held locks of a watchdog tick on Redis Cluster, where one script may only touch keys of one hash slot:
 * the locks of each slot in {@code renew.lua} calls of their own (a call per slot, split as on a single Redis when a
 * slot holds very many), all calls of the tick sent in one Redisson batch, which Redisson splits by master and sends
 * in one write to each. A tick thus costs one round trip per master, whatever the number of locks and slots.
 * <p>
 * The watchdog takes a renewal's answer for all of its locks or none, once every master has answered. A master that
 * is slow or does not answer (stalled, failing over) must not cost the locks of the other masters their renewal, and
 * with them, when it lasts, a false alarm. So each confirmed lease is extended as soon as its master answers, and when
 * some calls fail, the locks their masters found taken are reported lost before the renewal fails: the watchdog then
 * retries the whole tick's locks soon, as after any failed renewal, and the locks whose leases were confirmed keep
 * them. Losses are reported off Redisson's I/O threads, since loss listeners and actions are the application's code.
 */
final class SlotGroupedRenewal {

	private final LockScripts scripts;

	private final int callSize;

	private final BiConsumer<Throwable, Integer> refusalReporter;

	private final BiConsumer<RedisLockHandle, LostLock.Reason> lossReporter;

	/**
	 * @param callSize the most locks one script call renews, so no single call blocks a master for long
	 * @param refusalReporter told of each renewal's first failure (or null) and how many locks it concerns
	 * @param lossReporter told of a lock found taken, when other calls of the renewal failed
	 */
	SlotGroupedRenewal(LockScripts scripts, int callSize, BiConsumer<Throwable, Integer> refusalReporter,
			BiConsumer<RedisLockHandle, LostLock.Reason> lossReporter) {
		this.scripts = scripts;
		this.callSize = callSize;
		this.refusalReporter = refusalReporter;
		this.lossReporter = lossReporter;
	}

	/** As {@link io.github.distlock.engine.support.LeaseWatchdog.Renewer#renew}. */
	CompletionStage<List<Boolean>> renew(List<RedisLockHandle> handles, List<Long> ttlMillis) {
		long sentAt = System.nanoTime();
		List<List<Integer>> calls = callsBySlot(handles);
		List<List<Object>> keys = new ArrayList<>(calls.size());
		List<Object[]> args = new ArrayList<>(calls.size());
		for (List<Integer> call : calls) {
			List<Object> callKeys = new ArrayList<>(call.size());
			args.add(arguments(call.stream().map(handles::get).toList(), call.stream().map(ttlMillis::get).toList(),
					callKeys));
			keys.add(callKeys);
		}
		List<CompletionStage<List<Long>>> sent = this.scripts.runByShaTogether(LockScripts.RENEW, ReturnType.LIST,
				keys, args);
		List<CompletableFuture<List<Long>>> answers = new ArrayList<>(calls.size());
		for (int c = 0; c < calls.size(); c++) {
			List<Integer> call = calls.get(c);
			answers.add(sent.get(c)
				.thenApply((reply) -> extend(reply, call, handles, ttlMillis, sentAt))
				.toCompletableFuture());
		}
		return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
			.handle((ignored, failure) -> settle(handles, calls, answers));
	}

	/**
	 * Extends the leases one call confirmed, at once, so that a slower master does not hold them back: the watchdog
	 * records the renewal too when the whole of it succeeds, which changes nothing more.
	 */
	private static List<Long> extend(List<Long> reply, List<Integer> call, List<RedisLockHandle> handles,
			List<Long> ttlMillis, long sentAt) {
		for (int j = 0; j < call.size(); j++) {
			if (reply.get(j) == 1L) {
				handles.get(call.get(j)).extended(sentAt, TimeUnit.MILLISECONDS.toNanos(ttlMillis.get(call.get(j))));
			}
		}
		return reply;
	}

	/** The positions of the handles, one list per script call: grouped by slot, at most {@link #callSize} each. */
	private List<List<Integer>> callsBySlot(List<RedisLockHandle> handles) {
		Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
		for (int i = 0; i < handles.size(); i++) {
			bySlot.computeIfAbsent(HashSlot.of(handles.get(i).grantKey()), (slot) -> new ArrayList<>()).add(i);
		}
		List<List<Integer>> calls = new ArrayList<>();
		for (List<Integer> slot : bySlot.values()) {
			for (int from = 0; from < slot.size(); from += this.callSize) {
				calls.add(slot.subList(from, Math.min(slot.size(), from + this.callSize)));
			}
		}
		return calls;
	}

	private List<Boolean> settle(List<RedisLockHandle> handles, List<List<Integer>> calls,
			List<CompletableFuture<List<Long>>> answers) {
		Boolean[] renewed = new Boolean[handles.size()];
		Throwable failure = null;
		int unanswered = 0;
		for (int c = 0; c < calls.size(); c++) {
			List<Integer> call = calls.get(c);
			try {
				List<Long> reply = answers.get(c).join();
				for (int j = 0; j < call.size(); j++) {
					renewed[call.get(j)] = reply.get(j) == 1L;
				}
			}
			catch (CompletionException | CancellationException ex) {
				failure = (failure != null) ? failure : LockScripts.unwrap(ex);
				unanswered += call.size();
			}
		}
		this.refusalReporter.accept(failure, unanswered);
		if (failure == null) {
			// The watchdog reports the locks found taken, on its own thread.
			return List.of(renewed);
		}
		List<RedisLockHandle> taken = new ArrayList<>();
		for (int i = 0; i < handles.size(); i++) {
			if (Boolean.FALSE.equals(renewed[i])) {
				taken.add(handles.get(i));
			}
		}
		if (!taken.isEmpty()) {
			// This runs on a Redisson I/O thread, where the application's loss listeners and actions must not.
			CompletableFuture.runAsync(
					() -> taken.forEach((handle) -> this.lossReporter.accept(handle, LostLock.Reason.NOT_OWNED)));
		}
		// The confirmed leases were extended as they came; the watchdog retries every lock of the tick soon.
		throw new CompletionException(failure);
	}

	/**
	 * The arguments of one {@code renew.lua} call for these locks, each with its time to live; their keys are added
	 * to {@code keys}, in the same order.
	 */
	static Object[] arguments(List<RedisLockHandle> handles, List<Long> ttlMillis, List<Object> keys) {
		Object[] args = new Object[handles.size() * 3];
		for (int i = 0; i < handles.size(); i++) {
			RedisLockHandle handle = handles.get(i);
			boolean member = handle.isSharedHolder();
			keys.add(handle.grantKey());
			args[3 * i] = member ? "z" : "s";
			args[3 * i + 1] = member ? handle.member() : handle.holderPrefix;
			args[3 * i + 2] = ttlMillis.get(i);
		}
		return args;
	}

}
