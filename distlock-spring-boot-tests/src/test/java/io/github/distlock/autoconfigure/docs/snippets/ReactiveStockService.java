package io.github.distlock.autoconfigure.docs.snippets;

import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

import io.github.distlock.DistributedLock;
import io.github.distlock.ReactiveLockContext;

/** The async and reactive page: the fencing token in a locked {@code Mono}. */
@Service
class ReactiveStockService {

	/** A reactive stock store that checks the token of each write. */
	interface Stock {

		Mono<Void> decrement(String sku, long token);

	}

	private final Stock stock;

	ReactiveStockService(Stock stock) {
		this.stock = stock;
	}

    @DistributedLock(key = "#sku")
    public Mono<Void> reserve(String sku) {
        return ReactiveLockContext.current()
            .flatMap((lock) -> stock.decrement(sku, lock.token()));
    }

}
