package io.github.distlock.autoconfigure.docs.snippets;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;

import io.github.distlock.DistributedLock;

/** The shared-locks page: a key that names several locks, taken all or none. */
@Service
class TransferService {

	private final Map<String, Long> balances = new ConcurrentHashMap<>();

	record Transfer(String from, String to, long amount) {
		public List<String> accounts() { return List.of(from, to); }
	}

	@DistributedLock(name = "account", key = "#transfer.accounts()", waitTime = "5s")
	public void transfer(Transfer transfer) { this.balances.merge(transfer.to(), transfer.amount(), Long::sum); }

}
