-- MERGE rather than INSERT: a context started later in the same JVM must not fail on rows that already exist.
MERGE INTO product (sku, name, stock, last_token) KEY (sku) VALUES
	('limited-sneaker', 'Limited edition sneaker', 20, 0),
	('concert-ticket', 'Concert ticket', 100, 0);
