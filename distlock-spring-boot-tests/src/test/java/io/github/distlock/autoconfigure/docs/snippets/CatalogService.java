package io.github.distlock.autoconfigure.docs.snippets;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockMode;

/** The shared-locks page: a read/write lock and permits. */
@Service
class CatalogService {

	/** An item of the catalog. */
	record Item(String id, String title) {
	}

	private final Map<String, Item> items = new ConcurrentHashMap<>();

	@DistributedLock(name = "catalog", key = "#id", mode = LockMode.READ)
	public Item read(String id) { return this.items.get(id); }

	@DistributedLock(name = "catalog", key = "#id", mode = LockMode.WRITE)
	public void update(String id, Item item) { this.items.put(id, item); }

	@DistributedLock(name = "export", key = "'all'", permits = "${export.limit}", waitTime = "0s")
	public void export() { this.items.clear(); }

}
