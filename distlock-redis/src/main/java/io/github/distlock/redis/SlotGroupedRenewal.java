package io.github.distlock.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript.ReturnType;

import io.github.distlock.engine.support.LeaseWatchdog.AnswerPart;

/**
 * Renews the held locks of a watchdog tick on Redis Cluster, where one script may only touch keys of one hash slot:
 * the locks of each slot in {@code renew.lua} calls of their own (a call per slot, split as on a single Redis when a
 * slot holds very many), the calls of the tick to each master sent together in a Redisson batch of their own, in one
 * write. A tick thus costs one round trip per master, whatever the number of locks and slots, and a master that fails
 * fails no other master's calls.
 * <p>
 * Each call's answer is a part of the renewal's answer of its own, which the watchdog settles as it comes: a master
 * that is slow or does not answer (stalled, failing over) holds back the renewals of its own locks only, never those
 * of the other masters, which would otherwise expire while it waits and be reported lost.
 */
final class SlotGroupedRenewal {

	private final LockScripts scripts;

	private final int callSize;

	private final BiConsumer<@Nullable Throwable, Integer> refusalReporter;

	/**
	 * @param callSize the most locks one script call renews, so no single call blocks a master for long
	 * @param refusalReporter told, once every master has answered, of the renewal's first failure (or null) and how
	 * many locks the failed calls carried
	 */
	SlotGroupedRenewal(LockScripts scripts, int callSize, BiConsumer<@Nullable Throwable, Integer> refusalReporter) {
		this.scripts = scripts;
		this.callSize = callSize;
		this.refusalReporter = refusalReporter;
	}

	/** As {@link io.github.distlock.engine.support.LeaseWatchdog.PartedRenewer#renew}: a part per script call. */
	List<AnswerPart> renew(List<RedisLockHandle> handles, List<Long> ttlMillis) {
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
		List<AnswerPart> parts = new ArrayList<>(calls.size());
		List<CompletableFuture<List<Long>>> answers = new ArrayList<>(calls.size());
		for (int c = 0; c < calls.size(); c++) {
			CompletableFuture<List<Long>> answer = sent.get(c).toCompletableFuture();
			answers.add(answer);
			parts.add(new AnswerPart(calls.get(c),
					answer.thenApply((reply) -> reply.stream().map((one) -> one == 1L).toList())));
		}
		// Only for the log, which says once what the whole renewal met rather than what each call did.
		CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
			.whenComplete((ignored, failure) -> reportRefusal(failure, calls, answers));
		return parts;
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

	/** @param failure one of the calls' failures (what {@code allOf} completed with), or null when all answered */
	private void reportRefusal(Throwable failure, List<List<Integer>> calls,
			List<CompletableFuture<List<Long>>> answers) {
		int unanswered = 0;
		for (int c = 0; c < calls.size(); c++) {
			if (answers.get(c).isCompletedExceptionally()) {
				unanswered += calls.get(c).size();
			}
		}
		this.refusalReporter.accept((failure != null) ? LockScripts.unwrap(failure) : null, unanswered);
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
