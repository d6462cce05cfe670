-- The schemas of the second NL2SQL evaluation set (bench/nl2sql_eval_unfamiliar.json,
-- issue 29): four small databases unlike the demo's sales history, written for this
-- project with invented data.  Loaded as superuser into the evaluation's fresh database
-- by bench/eval_nl2sql.py --set unfamiliar.
--
-- On purpose, as in the public cross-domain benchmarks that trip small models: no
-- COMMENTs; generic column names repeated across tables (id, name, country, age, year);
-- many-to-many link tables joined by ids; lower-case categorical values ('dog',
-- 'economy'), a few mixed-case ones ('OneGlobe', 'Hip-Hop'); NULLs, dates, measures.
-- Every gold query of the set is checked against these rows (--oracle); a change here
-- must keep each answer unique (no tie for a "most" or "oldest").

-- vet: a veterinary clinic.  Owners have pets, pets visit vets, a visit gets
-- treatments (visit_treatments links visits and treatments).
create schema vet;

create table vet.owners
( id    integer primary key
, name  text not null
, city  text not null
, phone text
, age   integer not null
);

create table vet.pets
( id         integer primary key
, name       text not null
, species    text not null
, breed      text
, birth_date date not null
, weight_kg  numeric(6, 2) not null
, owner_id   integer not null references vet.owners (id)
);

create table vet.vets
( id         integer primary key
, name       text not null
, specialty  text
, hired_year integer not null
);

create table vet.visits
( id         integer primary key
, pet_id     integer not null references vet.pets (id)
, vet_id     integer not null references vet.vets (id)
, visit_date date not null
, reason     text not null
, cost       numeric(8, 2) not null
);

create table vet.treatments
( id    integer primary key
, name  text not null
, kind  text not null
, price numeric(8, 2) not null
);

create table vet.visit_treatments
( visit_id     integer not null references vet.visits (id)
, treatment_id integer not null references vet.treatments (id)
, quantity     integer not null
, primary key (visit_id, treatment_id)
);

insert into vet.owners values
  (1, 'Claire Dubois', 'Lyon', '04 72 11 20 31', 45)
, (2, 'Marco Bianchi', 'Turin', null, 38)
, (3, 'Ines Moreau', 'Lyon', '04 78 40 12 09', 29)
, (4, 'Tomasz Nowak', 'Krakow', '12 411 20 87', 52)
, (5, 'Anna Lindqvist', 'Uppsala', null, 61)
, (6, 'Jonas Weber', 'Freiburg', '0761 33 918', 34)
, (7, 'Lucia Ferrer', 'Valencia', '963 12 44 10', 47)
, (8, 'Pierre Garnier', 'Nantes', null, 70)
, (9, 'Sofia Rossi', 'Turin', '011 562 3390', 26)
, (10, 'Emil Novak', 'Krakow', null, 41);

insert into vet.pets values
  (1, 'Biscuit', 'dog', 'beagle', '2018-04-12', 11.2, 1)
, (2, 'Mistral', 'cat', 'siamese', '2016-09-03', 4.1, 1)
, (3, 'Pepper', 'dog', 'border collie', '2020-01-22', 17.5, 2)
, (4, 'Luna', 'cat', null, '2019-06-30', 3.6, 3)
, (5, 'Kiwi', 'parrot', 'grey', '2012-03-15', 0.45, 3)
, (6, 'Bruno', 'dog', 'boxer', '2015-11-02', 29.8, 4)
, (7, 'Nala', 'cat', 'maine coon', '2021-02-14', 6.9, 4)
, (8, 'Hopper', 'rabbit', null, '2022-05-01', 1.9, 5)
, (9, 'Saffi', 'dog', 'dachshund', '2017-07-19', 8.4, 5)
, (10, 'Ziggy', 'hamster', null, '2023-03-03', 0.12, 6)
, (11, 'Rex', 'dog', null, '2014-08-25', 34.0, 7)
, (12, 'Tigre', 'cat', 'european shorthair', '2018-12-01', 5.2, 7)
, (13, 'Coco', 'rabbit', 'lop', '2021-10-10', 2.3, 9)
, (14, 'Olive', 'dog', 'poodle', '2019-03-08', 7.1, 9)
, (15, 'Milo', 'cat', 'siamese', '2020-07-27', 4.4, 6)
, (16, 'Pip', 'parrot', 'budgerigar', '2022-01-16', 0.04, 2);

insert into vet.vets values
  (1, 'Helene Martin', 'surgery', 2009)
, (2, 'Karl Jensen', 'dentistry', 2015)
, (3, 'Priya Raman', 'exotics', 2018)
, (4, 'Oskar Lund', null, 2021)
, (5, 'Mei Tanaka', 'surgery', 2012);

insert into vet.visits values
  (1, 1, 1, '2024-01-09', 'checkup', 60.00)
, (2, 1, 2, '2024-03-14', 'dental', 180.00)
, (3, 2, 5, '2024-01-20', 'vaccination', 75.00)
, (4, 3, 1, '2024-02-02', 'injury', 240.00)
, (5, 3, 1, '2024-02-16', 'checkup', 55.00)
, (6, 4, 3, '2024-02-21', 'illness', 95.00)
, (7, 5, 3, '2024-03-01', 'checkup', 70.00)
, (8, 6, 5, '2024-03-05', 'injury', 310.00)
, (9, 6, 2, '2024-04-11', 'dental', 165.00)
, (10, 7, 4, '2024-04-18', 'vaccination', 80.00)
, (11, 8, 3, '2024-04-25', 'illness', 110.00)
, (12, 9, 1, '2024-05-02', 'checkup', 50.00)
, (13, 9, 4, '2024-05-30', 'vaccination', 75.00)
, (14, 11, 5, '2024-06-07', 'injury', 420.00)
, (15, 11, 5, '2024-06-21', 'checkup', 65.00)
, (16, 12, 4, '2024-07-03', 'vaccination', 40.00)
, (17, 13, 3, '2024-07-15', 'checkup', 45.00)
, (18, 14, 2, '2024-08-01', 'dental', 150.00)
, (19, 15, 1, '2024-08-19', 'illness', 130.00)
, (20, 16, 3, '2024-09-02', 'checkup', 40.00)
, (21, 2, 4, '2024-09-10', 'checkup', 55.00)
, (22, 6, 1, '2024-10-04', 'illness', 145.00)
, (23, 11, 2, '2024-10-22', 'dental', 175.00)
, (24, 1, 4, '2024-11-12', 'vaccination', 80.00);

insert into vet.treatments values
  (1, 'Rabies vaccine', 'vaccine', 35.00)
, (2, 'Distemper vaccine', 'vaccine', 40.00)
, (3, 'Deworming', 'medication', 18.50)
, (4, 'Antibiotics', 'medication', 27.00)
, (5, 'Dental cleaning', 'procedure', 120.00)
, (6, 'X-ray', 'procedure', 85.00)
, (7, 'Nail trim', 'procedure', 12.00)
, (8, 'Microchip', 'procedure', 45.00);

insert into vet.visit_treatments values
  (1, 3, 1), (2, 5, 1), (3, 1, 1), (3, 2, 1), (4, 6, 2), (4, 4, 1), (5, 7, 1), (6, 4, 1)
, (7, 7, 1), (8, 6, 1), (8, 4, 2), (9, 5, 1), (10, 1, 1), (10, 2, 1), (11, 4, 1), (12, 3, 1)
, (13, 1, 1), (14, 6, 3), (14, 4, 1), (15, 7, 1), (16, 2, 1), (17, 7, 1), (18, 5, 1), (19, 4, 2)
, (20, 7, 1), (21, 3, 1), (22, 6, 1), (23, 5, 1), (24, 1, 1);


-- library: a lending library.  Books have authors (book_authors links them; a book
-- may have two), members borrow books (loans; returned_date is null while on loan).
create schema library;

create table library.authors
( id         integer primary key
, name       text not null
, country    text not null
, birth_year integer not null
);

create table library.books
( id        integer primary key
, title     text not null
, year      integer not null
, genre     text not null
, pages     integer not null
, publisher text
);

create table library.book_authors
( book_id   integer not null references library.books (id)
, author_id integer not null references library.authors (id)
, primary key (book_id, author_id)
);

create table library.members
( id     integer primary key
, name   text not null
, age    integer not null
, city   text not null
, joined date not null
);

create table library.loans
( id            integer primary key
, book_id       integer not null references library.books (id)
, member_id     integer not null references library.members (id)
, loan_date     date not null
, returned_date date
);

insert into library.authors values
  (1, 'Maren Solberg', 'Norway', 1961)
, (2, 'Tobias Reinholt', 'Germany', 1975)
, (3, 'Aiko Morikawa', 'Japan', 1983)
, (4, 'Lucas Ferreira', 'Brazil', 1958)
, (5, 'Ewa Kowalczyk', 'Poland', 1990)
, (6, 'Hannes Brandt', 'Germany', 1969)
, (7, 'Nadia Haddad', 'Lebanon', 1979)
, (8, 'Owen Pryce', 'United Kingdom', 1985);

insert into library.books values
  (1, 'The Salt Orchard', 2004, 'novel', 312, 'Northwind Press')
, (2, 'Winter Ledger', 2011, 'crime', 288, 'Harbor House')
, (3, 'Paper Lanterns', 2016, 'poetry', 96, null)
, (4, 'A Short History of Bridges', 2009, 'history', 410, 'Atlas & Sons')
, (5, 'Tides of Recife', 1999, 'novel', 356, 'Harbor House')
, (6, 'The Quiet Algorithm', 2020, 'science', 264, 'Northwind Press')
, (7, 'Frost Lines', 2013, 'poetry', 120, 'Northwind Press')
, (8, 'Cold Case at Bergen', 2018, 'crime', 301, 'Harbor House')
, (9, 'Ink and Empire', 2015, 'history', 522, 'Atlas & Sons')
, (10, 'Small Gods of the Kitchen', 2021, 'novel', 244, null)
, (11, 'Counting Stars', 2008, 'science', 198, 'Atlas & Sons')
, (12, 'The Last Ferry', 2022, 'crime', 275, 'Harbor House')
, (13, 'Letters from the Vistula', 2019, 'novel', 330, 'Northwind Press')
, (14, 'Cedar and Smoke', 2012, 'poetry', 88, null);

insert into library.book_authors values
  (1, 1), (2, 2), (2, 6), (3, 3), (4, 6), (5, 4), (6, 2), (6, 3), (7, 1), (8, 1), (9, 6)
, (10, 7), (11, 2), (12, 1), (13, 5), (14, 7);

insert into library.members values
  (1, 'Liam Carter', 34, 'Bristol', '2019-03-11')
, (2, 'Hana Novakova', 27, 'Brno', '2020-06-02')
, (3, 'Felix Ahlgren', 52, 'Bristol', '2018-01-15')
, (4, 'Rosa Delgado', 41, 'Seville', '2021-09-30')
, (5, 'Yusuf Demir', 19, 'Izmir', '2023-02-07')
, (6, 'Greta Holm', 66, 'Brno', '2017-11-20')
, (7, 'Ivo Petrov', 30, 'Plovdiv', '2022-04-18')
, (8, 'Chloe Martin', 23, 'Bristol', '2024-01-05');

insert into library.loans values
  (1, 1, 1, '2024-01-10', '2024-01-28')
, (2, 2, 1, '2024-02-03', '2024-02-20')
, (3, 5, 2, '2024-01-15', '2024-02-01')
, (4, 4, 3, '2024-02-11', null)
, (5, 3, 4, '2024-03-02', '2024-03-09')
, (6, 6, 5, '2024-03-05', '2024-03-30')
, (7, 2, 6, '2024-03-18', '2024-04-02')
, (8, 9, 6, '2024-04-01', null)
, (9, 12, 7, '2024-04-09', '2024-04-25')
, (10, 8, 2, '2024-04-22', '2024-05-10')
, (11, 1, 4, '2024-05-06', '2024-05-20')
, (12, 13, 3, '2024-05-14', '2024-06-01')
, (13, 2, 5, '2024-06-01', '2024-06-15')
, (14, 6, 7, '2024-06-10', null)
, (15, 11, 1, '2024-06-20', '2024-07-02')
, (16, 10, 2, '2024-07-01', '2024-07-19');


-- aviation: airlines fly routes between airports (two foreign keys to the same
-- table) with an aircraft; each route has fares per class.
create schema aviation;

create table aviation.airports
( id          integer primary key
, code        char(3) not null unique
, name        text not null
, city        text not null
, country     text not null
, elevation_m integer not null
);

create table aviation.airlines
( id       integer primary key
, name     text not null
, country  text not null
, founded  integer not null
, alliance text
);

create table aviation.aircraft
( id           integer primary key
, model        text not null
, manufacturer text not null
, seats        integer not null
);

create table aviation.routes
( id             integer primary key
, airline_id     integer not null references aviation.airlines (id)
, origin_id      integer not null references aviation.airports (id)
, destination_id integer not null references aviation.airports (id)
, distance_km    integer not null
, aircraft_id    integer not null references aviation.aircraft (id)
);

create table aviation.fares
( id       integer primary key
, route_id integer not null references aviation.routes (id)
, class    text not null
, price    numeric(8, 2) not null
);

insert into aviation.airports values
  (1, 'OSL', 'Gardermoen', 'Oslo', 'Norway', 208)
, (2, 'LIS', 'Humberto Delgado', 'Lisbon', 'Portugal', 114)
, (3, 'BCN', 'El Prat', 'Barcelona', 'Spain', 4)
, (4, 'MAD', 'Barajas', 'Madrid', 'Spain', 610)
, (5, 'ZRH', 'Kloten', 'Zurich', 'Switzerland', 432)
, (6, 'VIE', 'Schwechat', 'Vienna', 'Austria', 183)
, (7, 'KEF', 'Keflavik', 'Reykjavik', 'Iceland', 52)
, (8, 'ATH', 'Venizelos', 'Athens', 'Greece', 94)
, (9, 'GVA', 'Cointrin', 'Geneva', 'Switzerland', 430)
, (10, 'TRD', 'Vaernes', 'Trondheim', 'Norway', 17);

insert into aviation.airlines values
  (1, 'Nordlys Air', 'Norway', 1998, 'Skybridge')
, (2, 'Iberica Connect', 'Spain', 2004, null)
, (3, 'Alpine Wings', 'Switzerland', 1987, 'Skybridge')
, (4, 'Atlantica', 'Portugal', 1979, 'OneGlobe')
, (5, 'Aegean Blue', 'Greece', 2011, null)
, (6, 'Danube Jet', 'Austria', 1995, 'OneGlobe')
, (7, 'Saga Airways', 'Iceland', 2016, null);

insert into aviation.aircraft values
  (1, 'A320neo', 'Airbus', 180)
, (2, 'A321', 'Airbus', 220)
, (3, '737-800', 'Boeing', 189)
, (4, 'E190', 'Embraer', 100)
, (5, 'ATR 72', 'ATR', 70)
, (6, 'A220-300', 'Airbus', 140)
, (7, 'A350-900', 'Airbus', 325);

insert into aviation.routes values
  (1, 1, 1, 10, 390, 5)
, (2, 1, 1, 7, 1740, 1)
, (3, 1, 1, 3, 2280, 3)
, (4, 1, 10, 1, 390, 5)
, (5, 2, 4, 3, 480, 4)
, (6, 2, 3, 4, 480, 4)
, (7, 2, 4, 2, 500, 1)
, (8, 3, 5, 6, 600, 6)
, (9, 3, 9, 3, 640, 6)
, (10, 3, 5, 8, 1630, 1)
, (11, 4, 2, 4, 500, 2)
, (12, 4, 2, 7, 2950, 3)
, (13, 4, 2, 3, 1000, 2)
, (14, 5, 8, 6, 1280, 1)
, (15, 6, 6, 5, 600, 4)
, (16, 6, 6, 8, 1280, 2);

insert into aviation.fares values
  (1, 1, 'economy', 89), (2, 2, 'economy', 149), (3, 2, 'business', 420)
, (4, 3, 'economy', 129), (5, 3, 'business', 510), (6, 4, 'economy', 95)
, (7, 5, 'economy', 59), (8, 6, 'economy', 62), (9, 7, 'economy', 75)
, (10, 8, 'economy', 110), (11, 8, 'business', 340), (12, 9, 'economy', 99)
, (13, 10, 'economy', 180), (14, 10, 'business', 620), (15, 10, 'first', 1150)
, (16, 11, 'economy', 79), (17, 12, 'economy', 230), (18, 12, 'business', 780)
, (19, 13, 'economy', 119), (20, 14, 'economy', 140), (21, 15, 'economy', 105)
, (22, 16, 'economy', 135), (23, 16, 'business', 395);


-- festival: a three-day music festival.  Performers (bands and solo acts) have
-- musicians (lineups links them; a musician may play in two), and perform on stages.
create schema festival;

create table festival.performers
( id          integer primary key
, name        text not null
, country     text not null
, genre       text not null
, formed_year integer not null
);

create table festival.musicians
( id         integer primary key
, name       text not null
, age        integer not null
, instrument text not null
);

create table festival.lineups
( performer_id integer not null references festival.performers (id)
, musician_id  integer not null references festival.musicians (id)
, joined_year  integer not null
, primary key (performer_id, musician_id)
);

create table festival.stages
( id       integer primary key
, name     text not null
, capacity integer not null
, covered  boolean not null
);

create table festival.performances
( id           integer primary key
, performer_id integer not null references festival.performers (id)
, stage_id     integer not null references festival.stages (id)
, day          date not null
, start_time   time not null
, minutes      integer not null
, attendance   integer
);

insert into festival.performers values
  (1, 'The Velvet Tides', 'Ireland', 'rock', 2008)
, (2, 'Lumen Ensemble', 'Denmark', 'jazz', 2014)
, (3, 'Kato & The Owls', 'Japan', 'indie', 2017)
, (4, 'Red Orchard', 'Canada', 'folk', 2011)
, (5, 'DJ Palomar', 'Mexico', 'electronic', 2019)
, (6, 'Glass Harbour', 'Ireland', 'indie', 2015)
, (7, 'Brass Monsoon', 'India', 'jazz', 2009)
, (8, 'Northern Static', 'Finland', 'rock', 2020)
, (9, 'Kid Meridian', 'USA', 'Hip-Hop', 2016);

insert into festival.musicians values
  (1, 'Aoife Byrne', 34, 'vocals')
, (2, 'Cian Walsh', 36, 'guitar')
, (3, 'Freja Holm', 29, 'piano')
, (4, 'Mads Krog', 41, 'bass')
, (5, 'Yuki Kato', 27, 'vocals')
, (6, 'Ren Ishida', 31, 'drums')
, (7, 'Tessa Lavoie', 38, 'fiddle')
, (8, 'Diego Palomar', 26, 'turntables')
, (9, 'Niamh Doyle', 25, 'guitar')
, (10, 'Arjun Mehta', 44, 'trumpet')
, (11, 'Kavya Iyer', 33, 'saxophone')
, (12, 'Eero Salo', 23, 'drums')
, (13, 'Marcus Reed', 30, 'vocals')
, (14, 'Lena Brandt', 37, 'cello');

insert into festival.lineups values
  (1, 1, 2008), (1, 2, 2008), (1, 6, 2012), (2, 3, 2014), (2, 4, 2014), (3, 5, 2017)
, (3, 6, 2017), (4, 7, 2011), (4, 2, 2016), (5, 8, 2019), (6, 9, 2015), (6, 1, 2020)
, (7, 10, 2009), (7, 11, 2010), (8, 12, 2020), (9, 13, 2016);

insert into festival.stages values
  (1, 'Main Stage', 12000, false)
, (2, 'Forest Tent', 3000, true)
, (3, 'Harbour Deck', 5000, false)
, (4, 'The Cellar', 800, true)
, (5, 'Lakeside Bandstand', 1500, false);

insert into festival.performances values
  (1, 1, 1, '2024-07-12', '21:00', 90, 9800)
, (2, 2, 2, '2024-07-12', '18:30', 60, 2100)
, (3, 3, 3, '2024-07-12', '17:00', 45, 3400)
, (4, 4, 2, '2024-07-13', '16:00', 60, 2500)
, (5, 5, 4, '2024-07-13', '23:30', 120, 780)
, (6, 6, 3, '2024-07-13', '19:00', 60, 4100)
, (7, 7, 2, '2024-07-13', '20:30', 75, 2900)
, (8, 1, 3, '2024-07-14', '15:00', 45, null)
, (9, 9, 1, '2024-07-14', '20:00', 75, 11200)
, (10, 3, 4, '2024-07-14', '22:00', 50, 650)
, (11, 6, 1, '2024-07-14', '18:00', 60, 8700)
, (12, 2, 4, '2024-07-14', '19:30', 45, null);
