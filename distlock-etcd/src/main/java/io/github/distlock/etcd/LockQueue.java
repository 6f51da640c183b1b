package io.github.distlock.etcd;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import org.jspecify.annotations.Nullable;

/**
 * The etcd calls of the lock recipe (etcd's own {@code concurrency} mutex): a lock's queue is the keys under its
 * prefix, ordered by create revision, and the key with the lowest create revision holds the lock.
 * <p>
 * Joining is one transaction that creates the acquisition's key, attached to the instance's lease, and reads the two
 * newest keys of the queue: the first is the new key itself (nothing under the prefix can be newer), the second, if
 * any, the key just ahead of it. A key not first watches only the key ahead of it, so a release wakes one waiter, and
 * waiters are served in the order they joined. Leaving deletes the key only if it still has the create revision it
 * was given, so it never deletes another acquisition's key.
 * <p>
 * An acquisition whose join got no answer may still have created its key, and the transaction may even reach etcd
 * long after (a client waiting for a connection sends it once it has one). Such a key would queue ahead of everyone
 * for as long as the instance lives. So a join only creates its key while no abandonment mark for it exists, and
 * {@link #abandon} writes that mark and deletes the key in one transaction: whichever of the two reaches etcd
 * first, the key does not survive. Marks live with the lease, like the keys they guard.
 */
final class LockQueue {

	private static final GetOption KEY_ONLY = GetOption.builder().withKeysOnly(true).build();

	/** Where an acquisition stands after joining. */
	record Place(long token, long revision, @Nullable ByteSequence ahead) {
	}

	/** Where an acquisition stands when it looks again. */
	record Look(boolean present, long revision, @Nullable ByteSequence ahead) {
	}

	private final KV kv;

	private final Watch watch;

	private final LockKeys keys;

	LockQueue(KV kv, Watch watch, LockKeys keys) {
		this.kv = kv;
		this.watch = watch;
		this.keys = keys;
	}

	/**
	 * Creates the acquisition's key at the end of the queue: one write.
	 * @param abandoned earlier holders of the same acquisition whose joins got no answer in time: in the same
	 * transaction each is marked abandoned (attached to the same lease) and its key deleted, before the new key is
	 * created, so that none of them queues ahead of it now or later (see {@link #abandon})
	 * @return its create revision (the fencing token), the revision read, and the key just ahead, null when the key
	 * is first (it holds the lock)
	 */
	CompletableFuture<Place> join(ByteSequence queue, String holder, long leaseId, List<String> abandoned) {
		ByteSequence own = LockKeys.member(queue, holder);
		GetOption newestTwo = GetOption.builder()
			.isPrefix(true)
			.withSortField(GetOption.SortTarget.CREATE)
			.withSortOrder(GetOption.SortOrder.DESCEND)
			.withLimit(2)
			.withKeysOnly(true)
			.build();
		List<Op> ops = new ArrayList<>();
		for (String earlier : abandoned) {
			ops.add(Op.put(this.keys.abandoned(earlier), ByteSequence.EMPTY,
					PutOption.builder().withLeaseId(leaseId).build()));
			ops.add(Op.delete(LockKeys.member(queue, earlier), DeleteOption.DEFAULT));
		}
		ops.add(Op.put(own, LockKeys.bytes(holder), PutOption.builder().withLeaseId(leaseId).build()));
		ops.add(Op.get(queue, newestTwo));
		return this.kv.txn()
			.If(new Cmp(this.keys.abandoned(holder), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
			.Then(ops.toArray(Op[]::new))
			.commit()
			.thenApply((response) -> place(response, own));
	}

	private static Place place(TxnResponse response, ByteSequence own) {
		if (!response.isSucceeded()) {
			throw new IllegalStateException("The acquisition was abandoned before its key was created");
		}
		List<GetResponse> reads = response.getGetResponses();
		List<KeyValue> newest = reads.get(reads.size() - 1).getKvs();
		if (newest.isEmpty() || !newest.get(0).getKey().equals(own)) {
			throw new IllegalStateException("The new key is not the newest of its queue");
		}
		ByteSequence ahead = (newest.size() > 1) ? newest.get(1).getKey() : null;
		return new Place(newest.get(0).getCreateRevision(), response.getHeader().getRevision(), ahead);
	}

	/**
	 * Reads again, in one read-only transaction, whether the key is still there and which key is just ahead of it
	 * now.
	 */
	CompletableFuture<Look> look(ByteSequence queue, String holder, long token) {
		ByteSequence own = LockKeys.member(queue, holder);
		GetOption newestAhead = GetOption.builder()
			.isPrefix(true)
			.withMaxCreateRevision(token - 1)
			.withSortField(GetOption.SortTarget.CREATE)
			.withSortOrder(GetOption.SortOrder.DESCEND)
			.withLimit(1)
			.withKeysOnly(true)
			.build();
		return this.kv.txn()
			.Then(Op.get(own, KEY_ONLY), Op.get(queue, newestAhead))
			.commit()
			.thenApply((response) -> {
				List<GetResponse> reads = response.getGetResponses();
				List<KeyValue> ahead = reads.get(1).getKvs();
				return new Look(isOwn(reads.get(0), token), response.getHeader().getRevision(),
						ahead.isEmpty() ? null : ahead.get(0).getKey());
			});
	}

	/** Watches a key from a revision on, for its deletion. */
	KeyDeletionWatch watchDeletion(ByteSequence key, long fromRevision) {
		return new KeyDeletionWatch(this.watch, key, fromRevision);
	}

	/**
	 * Deletes the key if it is still the one created with this token: one write when it is.
	 * @return whether it was, and is now deleted
	 */
	CompletableFuture<Boolean> leave(ByteSequence own, long token) {
		return this.kv.txn()
			.If(new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(token)))
			.Then(Op.delete(own, DeleteOption.DEFAULT))
			.commit()
			.thenApply(TxnResponse::isSucceeded);
	}

	/**
	 * For a join that got no answer: marks it abandoned, so that it can no longer create its key, and deletes the
	 * key should it have created it already. The mark is attached to the lease the join named: should that lease be
	 * gone, the join cannot create a key either, and the mark is not needed.
	 */
	CompletableFuture<Void> abandon(ByteSequence queue, String holder, long leaseId) {
		return this.kv.txn()
			.Then(Op.put(this.keys.abandoned(holder), ByteSequence.EMPTY,
					PutOption.builder().withLeaseId(leaseId).build()),
					Op.delete(LockKeys.member(queue, holder), DeleteOption.DEFAULT))
			.commit()
			.thenApply((response) -> null);
	}

	/** Whether each key still is the one created with its token, read in one read-only transaction. */
	CompletableFuture<List<Boolean>> stillOwned(List<ByteSequence> owns, List<Long> tokens) {
		Op[] reads = owns.stream().map((own) -> Op.get(own, KEY_ONLY)).toArray(Op[]::new);
		return this.kv.txn().Then(reads).commit().thenApply((response) -> {
			List<GetResponse> got = response.getGetResponses();
			return IntStream.range(0, owns.size())
				.mapToObj((i) -> isOwn(got.get(i), tokens.get(i)))
				.toList();
		});
	}

	/** Whether the key is still the one created with this token, read once. */
	CompletableFuture<Boolean> stillOwned(ByteSequence own, long token) {
		return this.kv.get(own, KEY_ONLY).thenApply((response) -> isOwn(response, token));
	}

	private static boolean isOwn(GetResponse read, long token) {
		return !read.getKvs().isEmpty() && read.getKvs().get(0).getCreateRevision() == token;
	}

}
