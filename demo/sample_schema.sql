-- Sample data for `make demo`: a small sales history (schema sh), modelled on
-- Oracle's SH sample schema, with comments and primary/foreign keys so that
-- natural-language-to-SQL has something to read.  Loaded as superuser into
-- the demo database by demo/run_demo.py; demo_user gets read access.

create schema sh;
comment on schema sh is 'Sales history of a small sports equipment retailer (after Oracle''s SH sample schema)';

create table sh.countries
( country_id        integer primary key
, country_iso_code  char(2) not null unique
, country_name      text not null
, country_subregion text not null
, country_region    text not null
);
comment on table sh.countries is 'Countries where customers live';
comment on column sh.countries.country_id is 'Country identifier';
comment on column sh.countries.country_iso_code is 'ISO 3166-1 alpha-2 country code, e.g. US, DE';
comment on column sh.countries.country_name is 'Country name in English';
comment on column sh.countries.country_subregion is 'Subregion, e.g. Western Europe, Northern America';
comment on column sh.countries.country_region is 'Region: Americas, Europe, Asia or Oceania';

create table sh.customers
( cust_id             integer primary key
, cust_first_name     text not null
, cust_last_name      text not null
, cust_gender         char(1) not null check (cust_gender in ('F', 'M'))
, cust_year_of_birth  integer not null
, cust_marital_status text
, cust_city           text not null
, cust_state_province text
, country_id          integer not null references sh.countries
, cust_email          text
, cust_credit_limit   numeric(10, 2)
);
comment on table sh.customers is 'Customers of the shop';
comment on column sh.customers.cust_id is 'Customer identifier';
comment on column sh.customers.cust_first_name is 'First name';
comment on column sh.customers.cust_last_name is 'Last name';
comment on column sh.customers.cust_gender is 'Gender: F (female) or M (male)';
comment on column sh.customers.cust_year_of_birth is 'Year of birth';
comment on column sh.customers.cust_marital_status is 'Marital status: single, married, divorced or widowed';
comment on column sh.customers.cust_city is 'City of residence';
comment on column sh.customers.cust_state_province is 'State or province of residence';
comment on column sh.customers.country_id is 'Country of residence (sh.countries)';
comment on column sh.customers.cust_email is 'E-mail address';
comment on column sh.customers.cust_credit_limit is 'Credit limit in US dollars';

create table sh.products
( prod_id          integer primary key
, prod_name        text not null unique
, prod_desc        text not null
, prod_category    text not null
, prod_subcategory text not null
, prod_list_price  numeric(10, 2) not null
, prod_min_price   numeric(10, 2) not null
);
comment on table sh.products is 'Products the shop sells';
comment on column sh.products.prod_id is 'Product identifier';
comment on column sh.products.prod_name is 'Product name';
comment on column sh.products.prod_desc is 'Product description';
comment on column sh.products.prod_category is 'Category: Footwear, Fitness, Electronics, Racquet Sports, Cycling or Outdoor';
comment on column sh.products.prod_subcategory is 'Subcategory within the category';
comment on column sh.products.prod_list_price is 'List price in US dollars';
comment on column sh.products.prod_min_price is 'Lowest price allowed after discounts, in US dollars';

create table sh.sales
( sale_id       integer primary key
, prod_id       integer not null references sh.products
, cust_id       integer not null references sh.customers
, time_id       date not null
, channel       text not null check (channel in ('Internet', 'Direct Sales', 'Partners'))
, quantity_sold integer not null check (quantity_sold > 0)
, amount_sold   numeric(10, 2) not null
);
comment on table sh.sales is 'Sales transactions: one row per product sold to a customer on a day';
comment on column sh.sales.sale_id is 'Sale identifier';
comment on column sh.sales.prod_id is 'Product sold (sh.products)';
comment on column sh.sales.cust_id is 'Customer who bought (sh.customers)';
comment on column sh.sales.time_id is 'Date of the sale';
comment on column sh.sales.channel is 'Sales channel: Internet, Direct Sales or Partners';
comment on column sh.sales.quantity_sold is 'Number of units sold';
comment on column sh.sales.amount_sold is 'Amount paid in US dollars, after any discount';
create index on sh.sales (prod_id);
create index on sh.sales (cust_id);
create index on sh.sales (time_id);

insert into sh.countries (country_id, country_iso_code, country_name, country_subregion, country_region) values
  (52769, 'SG', 'Singapore', 'Asia', 'Asia'),
  (52770, 'IT', 'Italy', 'Southern Europe', 'Europe'),
  (52771, 'CN', 'China', 'Asia', 'Asia'),
  (52772, 'CA', 'Canada', 'Northern America', 'Americas'),
  (52773, 'AR', 'Argentina', 'Southern America', 'Americas'),
  (52774, 'AU', 'Australia', 'Australia', 'Oceania'),
  (52775, 'BR', 'Brazil', 'Southern America', 'Americas'),
  (52776, 'DE', 'Germany', 'Western Europe', 'Europe'),
  (52777, 'DK', 'Denmark', 'Northern Europe', 'Europe'),
  (52778, 'ES', 'Spain', 'Southern Europe', 'Europe'),
  (52779, 'FR', 'France', 'Western Europe', 'Europe'),
  (52782, 'JP', 'Japan', 'Asia', 'Asia'),
  (52789, 'GB', 'United Kingdom', 'Northern Europe', 'Europe'),
  (52790, 'US', 'United States of America', 'Northern America', 'Americas');

insert into sh.customers (cust_id, cust_first_name, cust_last_name, cust_gender, cust_year_of_birth, cust_marital_status, cust_city, cust_state_province, country_id, cust_email, cust_credit_limit) values
  (101, 'Abigail', 'Ruddy', 'F', 1964, 'divorced', 'Denver', 'CO', 52790, 'abigail.ruddy@example.com', 11000),
  (102, 'Anne', 'Koch', 'F', 1959, 'widowed', 'Munich', 'Bavaria', 52776, 'anne.koch@example.com', 1500),
  (103, 'Brian', 'Mitchell', 'M', 1992, 'single', 'Denver', 'CO', 52790, 'brian.mitchell@example.com', 9000),
  (104, 'Carla', 'Rossi', 'F', 1957, 'single', 'Milan', 'Lombardy', 52770, 'carla.rossi@example.com', 7000),
  (105, 'Chen', 'Wei', 'M', 1959, 'married', 'Shanghai', 'Shanghai', 52771, 'chen.wei@example.com', 1500),
  (106, 'Daniel', 'Okafor', 'M', 1958, 'widowed', 'Edinburgh', 'Scotland', 52789, 'daniel.okafor@example.com', 1500),
  (107, 'Elena', 'Garcia', 'F', 1995, 'married', 'Madrid', 'Madrid', 52778, 'elena.garcia@example.com', 9000),
  (108, 'Emma', 'Thompson', 'F', 1991, 'married', 'Manchester', 'England', 52789, 'emma.thompson@example.com', 7000),
  (109, 'Felix', 'Wagner', 'M', 1969, 'single', 'Munich', 'Bavaria', 52776, 'felix.wagner@example.com', 9000),
  (110, 'Hiro', 'Tanaka', 'M', 1973, 'single', 'Osaka', 'Osaka', 52782, 'hiro.tanaka@example.com', 3000),
  (111, 'Ines', 'Dubois', 'F', 1991, 'single', 'Lyon', 'Auvergne-Rhone-Alpes', 52779, 'ines.dubois@example.com', 9000),
  (112, 'Jack', 'Wilson', 'M', 1961, 'widowed', 'Sydney', 'New South Wales', 52774, 'jack.wilson@example.com', 9000),
  (113, 'Julia', 'Santos', 'F', 1978, 'single', 'Sao Paulo', 'Sao Paulo', 52775, 'julia.santos@example.com', 9000),
  (114, 'Kevin', 'Nguyen', 'M', 1991, 'single', 'Toronto', 'Ontario', 52772, 'kevin.nguyen@example.com', 9000),
  (115, 'Lars', 'Nielsen', 'M', 1986, 'married', 'Copenhagen', 'Capital Region', 52777, 'lars.nielsen@example.com', 9000),
  (116, 'Lucia', 'Fernandez', 'F', 1975, 'single', 'Buenos Aires', 'Buenos Aires', 52773, 'lucia.fernandez@example.com', 9000),
  (117, 'Marco', 'Bianchi', 'M', 1978, 'single', 'Rome', 'Lazio', 52770, 'marco.bianchi@example.com', 3000),
  (118, 'Maria', 'Lopez', 'F', 1999, 'single', 'Boston', 'MA', 52790, 'maria.lopez@example.com', 1500),
  (119, 'Mei', 'Lin', 'F', 1988, 'single', 'Singapore', 'Singapore', 52769, 'mei.lin@example.com', 5000),
  (120, 'Noah', 'Martin', 'M', 1973, 'married', 'Paris', 'Ile-de-France', 52779, 'noah.martin@example.com', 1500),
  (121, 'Olivia', 'Brown', 'F', 1987, 'single', 'Toronto', 'Ontario', 52772, 'olivia.brown@example.com', 3000),
  (122, 'Pablo', 'Ruiz', 'M', 1964, 'divorced', 'Barcelona', 'Catalonia', 52778, 'pablo.ruiz@example.com', 7000),
  (123, 'Priya', 'Sharma', 'F', 1997, 'single', 'San Francisco', 'CA', 52790, 'priya.sharma@example.com', 15000),
  (124, 'Sofia', 'Schmidt', 'F', 1976, 'married', 'Hamburg', 'Hamburg', 52776, 'sofia.schmidt@example.com', 5000),
  (125, 'Thomas', 'Lee', 'M', 1992, 'single', 'Melbourne', 'Victoria', 52774, 'thomas.lee@example.com', 1500),
  (126, 'Yuki', 'Sato', 'F', 1972, 'single', 'Osaka', 'Osaka', 52782, 'yuki.sato@example.com', 11000),
  (127, 'William', 'Clark', 'M', 1958, 'married', 'San Francisco', 'CA', 52790, 'william.clark@example.com', 11000),
  (128, 'Zoe', 'Moreau', 'F', 1973, 'married', 'Paris', 'Ile-de-France', 52779, 'zoe.moreau@example.com', 7000);

insert into sh.products (prod_id, prod_name, prod_desc, prod_category, prod_subcategory, prod_list_price, prod_min_price) values
  (1, 'Trail Running Shoes', 'Lightweight trail shoe with a rock plate and a grippy outsole', 'Footwear', 'Running Shoes', 129.99, 103.99),
  (2, 'Road Running Shoes', 'Cushioned daily trainer for road running', 'Footwear', 'Running Shoes', 119.99, 95.99),
  (3, 'Hiking Boots', 'Waterproof leather hiking boots', 'Footwear', 'Boots', 189.00, 151.20),
  (4, 'Yoga Mat', '6 mm non-slip yoga mat', 'Fitness', 'Accessories', 39.90, 31.92),
  (5, 'Adjustable Dumbbells', 'Pair of adjustable dumbbells, 2 to 24 kg', 'Fitness', 'Weights', 349.00, 279.20),
  (6, 'Fitness Tracker', 'Wrist-worn heart-rate and sleep tracker', 'Electronics', 'Wearables', 99.00, 79.20),
  (7, 'GPS Sports Watch', 'Multisport GPS watch with maps', 'Electronics', 'Wearables', 299.00, 239.20),
  (8, 'Tennis Racket Pro', 'Graphite tennis racket, 300 g, 100 sq in head', 'Racquet Sports', 'Tennis', 219.00, 175.20),
  (9, 'Tennis Balls (4-pack)', 'Pressurised championship tennis balls', 'Racquet Sports', 'Tennis', 6.99, 5.59),
  (10, 'Badminton Set', 'Two rackets, shuttlecocks and a net', 'Racquet Sports', 'Badminton', 59.00, 47.20),
  (11, 'Cycling Helmet', 'Road cycling helmet with MIPS', 'Cycling', 'Protection', 149.00, 119.20),
  (12, 'Bike Lights Set', 'Rechargeable front and rear LED lights', 'Cycling', 'Accessories', 45.00, 36.00),
  (13, 'Camping Tent 2P', 'Two-person three-season backpacking tent', 'Outdoor', 'Camping', 279.00, 223.20),
  (14, 'Sleeping Bag', 'Down sleeping bag rated to -5 C', 'Outdoor', 'Camping', 229.00, 183.20),
  (15, 'Insulated Water Bottle', '750 ml stainless steel bottle, keeps drinks cold 24 h', 'Outdoor', 'Accessories', 29.90, 23.92);

insert into sh.sales (sale_id, prod_id, cust_id, time_id, channel, quantity_sold, amount_sold) values
  (1001, 6, 112, date '2024-01-08', 'Partners', 1, 99.00),
  (1002, 10, 107, date '2024-01-10', 'Internet', 1, 53.10),
  (1003, 3, 113, date '2024-01-17', 'Partners', 1, 189.00),
  (1004, 2, 113, date '2024-01-24', 'Partners', 1, 119.99),
  (1005, 5, 128, date '2024-01-31', 'Partners', 1, 349.00),
  (1006, 5, 122, date '2024-02-06', 'Direct Sales', 1, 314.10),
  (1007, 4, 105, date '2024-02-11', 'Internet', 1, 39.90),
  (1008, 11, 116, date '2024-02-15', 'Internet', 1, 149.00),
  (1009, 3, 101, date '2024-02-24', 'Direct Sales', 1, 189.00),
  (1010, 7, 120, date '2024-02-27', 'Direct Sales', 1, 254.15),
  (1011, 6, 115, date '2024-03-07', 'Internet', 1, 99.00),
  (1012, 13, 113, date '2024-03-14', 'Partners', 1, 237.15),
  (1013, 7, 121, date '2024-03-18', 'Partners', 1, 299.00),
  (1014, 1, 107, date '2024-03-24', 'Internet', 1, 129.99),
  (1015, 3, 120, date '2024-03-30', 'Direct Sales', 1, 189.00),
  (1016, 2, 118, date '2024-04-02', 'Internet', 1, 119.99),
  (1017, 6, 103, date '2024-04-08', 'Internet', 1, 84.15),
  (1018, 10, 112, date '2024-04-15', 'Direct Sales', 3, 177.00),
  (1019, 6, 104, date '2024-04-24', 'Internet', 1, 89.10),
  (1020, 8, 110, date '2024-04-29', 'Partners', 1, 197.10),
  (1021, 3, 124, date '2024-05-02', 'Direct Sales', 1, 189.00),
  (1022, 8, 107, date '2024-05-10', 'Internet', 1, 219.00),
  (1023, 6, 125, date '2024-05-18', 'Internet', 1, 99.00),
  (1024, 5, 117, date '2024-05-24', 'Direct Sales', 1, 349.00),
  (1025, 15, 118, date '2024-05-28', 'Internet', 1, 29.90),
  (1026, 13, 121, date '2024-06-05', 'Direct Sales', 1, 237.15),
  (1027, 10, 124, date '2024-06-08', 'Partners', 1, 59.00),
  (1028, 4, 124, date '2024-06-14', 'Direct Sales', 4, 143.64),
  (1029, 1, 109, date '2024-06-19', 'Partners', 1, 129.99),
  (1030, 12, 126, date '2024-06-26', 'Partners', 4, 180.00),
  (1031, 6, 108, date '2024-07-06', 'Internet', 1, 99.00),
  (1032, 4, 107, date '2024-07-07', 'Direct Sales', 3, 119.70),
  (1033, 10, 121, date '2024-07-16', 'Partners', 4, 236.00),
  (1034, 13, 113, date '2024-07-21', 'Internet', 1, 279.00),
  (1035, 13, 106, date '2024-07-30', 'Partners', 1, 279.00),
  (1036, 13, 126, date '2024-08-03', 'Internet', 1, 279.00),
  (1037, 7, 124, date '2024-08-11', 'Partners', 1, 269.10),
  (1038, 12, 101, date '2024-08-12', 'Internet', 1, 45.00),
  (1039, 10, 122, date '2024-08-19', 'Partners', 3, 177.00),
  (1040, 3, 101, date '2024-08-26', 'Internet', 1, 160.65),
  (1041, 13, 114, date '2024-08-30', 'Internet', 1, 279.00),
  (1042, 14, 109, date '2024-09-06', 'Internet', 1, 229.00),
  (1043, 5, 125, date '2024-09-12', 'Internet', 1, 296.65),
  (1044, 6, 127, date '2024-09-21', 'Partners', 1, 99.00),
  (1045, 1, 122, date '2024-09-24', 'Partners', 1, 129.99),
  (1046, 14, 127, date '2024-10-03', 'Partners', 1, 194.65),
  (1047, 3, 117, date '2024-10-09', 'Internet', 1, 160.65),
  (1048, 1, 120, date '2024-10-15', 'Internet', 1, 116.99),
  (1049, 13, 105, date '2024-10-17', 'Internet', 1, 279.00),
  (1050, 10, 111, date '2024-10-26', 'Internet', 1, 50.15),
  (1051, 9, 126, date '2024-11-03', 'Partners', 4, 23.77),
  (1052, 15, 107, date '2024-11-04', 'Internet', 4, 119.60),
  (1053, 1, 118, date '2024-11-12', 'Partners', 1, 129.99),
  (1054, 13, 111, date '2024-11-16', 'Partners', 1, 279.00),
  (1055, 9, 123, date '2024-11-26', 'Internet', 4, 23.77),
  (1056, 8, 117, date '2024-11-30', 'Partners', 1, 186.15),
  (1057, 12, 127, date '2024-12-05', 'Internet', 4, 180.00),
  (1058, 3, 113, date '2024-12-13', 'Internet', 1, 170.10),
  (1059, 6, 114, date '2024-12-19', 'Internet', 1, 99.00),
  (1060, 4, 123, date '2024-12-22', 'Internet', 2, 79.80);

analyze sh.countries, sh.customers, sh.products, sh.sales;
