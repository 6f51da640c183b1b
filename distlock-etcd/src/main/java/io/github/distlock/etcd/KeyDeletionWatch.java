package io.github.distlock.etcd;

import java.util.concurrent.CompletableFuture;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;

/**
 * A watch on one key that tells when the key is deleted: the key ahead in a lock's queue, for its waiter, or a held
 * lock's own key, for its holder.
 * <p>
 * The watch starts at a revision the caller has read, so a deletion between that read and the watch's creation is
 * not missed. A watch that breaks (a member going away) is resumed by jetcd from the last revision it saw, and so
 * still sees a deletion made meanwhile; errors on the way are left to jetcd. Only when jetcd gives the watch up (a
 * compacted revision, a refusal) does {@link #deleted()} fail, and the caller must look at the key again itself.
 */
final class KeyDeletionWatch implements AutoCloseable {

	private final CompletableFuture<Void> deleted = new CompletableFuture<>();

	private final Watch.Watcher watcher;

	/**
	 * @param fromRevision the first revision whose events count: one past the revision the key was last seen at
	 */
	KeyDeletionWatch(Watch watch, ByteSequence key, long fromRevision) {
		WatchOption option = WatchOption.builder().withRevision(fromRevision).withNoPut(true).build();
		this.watcher = watch.watch(key, option, Watch.listener(this::onEvents, (error) -> {
			// jetcd resumes the watch after an error it can recover from, and ends it (onCompleted) otherwise.
		}, this::onEnded));
	}

	/** Completes when the key is deleted; fails when the watch ended without seeing a deletion. */
	CompletableFuture<Void> deleted() {
		return this.deleted;
	}

	private void onEvents(WatchResponse response) {
		for (WatchEvent event : response.getEvents()) {
			if (event.getEventType() == WatchEvent.EventType.DELETE) {
				this.deleted.complete(null);
				return;
			}
		}
	}

	private void onEnded() {
		this.deleted.completeExceptionally(new IllegalStateException("The watch ended without seeing a deletion"));
	}

	/** Stops watching; {@link #deleted()} then fails unless the deletion was seen first. */
	@Override
	public void close() {
		this.watcher.close();
	}

}
