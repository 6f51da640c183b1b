-- Inserted only where missing: a context started later in the same JVM finds the rows already there. Plain SQL
-- that H2 and PostgreSQL both run (the two-process demo loads this file into PostgreSQL).
INSERT INTO product (sku, name, stock, last_token)
SELECT 'limited-sneaker', 'Limited edition sneaker', 20, 0
WHERE NOT EXISTS (SELECT 1 FROM product WHERE sku = 'limited-sneaker');

INSERT INTO product (sku, name, stock, last_token)
SELECT 'concert-ticket', 'Concert ticket', 100, 0
WHERE NOT EXISTS (SELECT 1 FROM product WHERE sku = 'concert-ticket');
