{ stores_demo for Understudy's Informix emulator: the schema of IBM's stores_demo sample
  database (tables, SERIAL starts, keys, checks, the custview view and the upqty_i trigger), with
  rows written for Understudy: the people, companies and addresses are made up; the ZIP codes are
  real, so the geocoder can place every customer. Informix SQL, run statement by statement
  (DBDATE Y4MD-: dates are written yyyy-mm-dd). Edit freely; `understudy check` reports problems
  with their line. Constraints are left unnamed so Informix's own names come out (u100_1 ...). }

create table customer (
    customer_num serial(101) not null,
    fname char(15),
    lname char(15),
    company char(20),
    address1 char(20),
    address2 char(20),
    city char(15),
    state char(2),
    zipcode char(5),
    phone char(18),
    primary key (customer_num)
);

create table orders (
    order_num serial(1001) not null,
    order_date date,
    customer_num integer not null,
    ship_instruct char(40),
    backlog char(1),
    po_num char(10),
    ship_date date,
    ship_weight decimal(8,2),
    ship_charge money(6,2),
    paid_date date,
    primary key (order_num),
    foreign key (customer_num) references customer (customer_num)
);

create table manufact (
    manu_code char(3),
    manu_name char(15),
    lead_time interval day(3) to day,
    primary key (manu_code)
);

create table stock (
    stock_num smallint,
    manu_code char(3),
    description char(15),
    unit_price money(6,2),
    unit char(4),
    unit_descr char(15),
    primary key (stock_num, manu_code),
    foreign key (manu_code) references manufact (manu_code)
);

create table items (
    item_num smallint,
    order_num integer,
    stock_num smallint not null,
    manu_code char(3) not null,
    quantity smallint check (quantity >= 1),
    total_price money(8,2),
    primary key (item_num, order_num),
    foreign key (order_num) references orders (order_num),
    foreign key (stock_num, manu_code) references stock (stock_num, manu_code)
);

create table state (
    code char(2),
    sname char(15),
    primary key (code)
);

create table call_type (
    call_code char(1),
    code_descr char(30),
    primary key (call_code)
);

create table cust_calls (
    customer_num integer,
    call_dtime datetime year to minute,
    user_id char(18) default user,
    call_code char(1),
    call_descr char(240),
    res_dtime datetime year to minute,
    res_descr char(240),
    primary key (customer_num, call_dtime),
    foreign key (customer_num) references customer (customer_num),
    foreign key (call_code) references call_type (call_code)
);

create table catalog (
    catalog_num serial(10001) not null,
    stock_num smallint not null,
    manu_code char(3) not null,
    cat_descr text,
    cat_picture byte,
    cat_advert varchar(255, 65),
    primary key (catalog_num),
    foreign key (stock_num, manu_code) references stock (stock_num, manu_code)
);

create table log_record (
    item_num smallint,
    ord_num integer,
    username char(8),
    update_time datetime year to minute,
    old_qty smallint,
    new_qty smallint
);

create index zip_ix on customer (zipcode);

create view custview (firstname, lastname, company, city) as
    select fname, lname, company, city from customer where city = 'Redwood City'
    with check option;

create trigger upqty_i update of quantity on items
    referencing old as pre_upd new as post_upd
    for each row (insert into log_record
        values (pre_upd.item_num, pre_upd.order_num, user, current year to minute,
                pre_upd.quantity, post_upd.quantity));


{ 28 customers }

insert into customer values (0, 'Marta', 'Okafor', 'Ridgeline Sports', '1207 Larkspur Lane', null, 'Sunnyvale', 'CA', '94086', '408-555-0100');
insert into customer values (0, 'Devon', 'Hartley', 'Baylands Outfitters', '88 Marsh Road', null, 'Redwood City', 'CA', '94063', '408-555-0101');
insert into customer values (0, 'Priya', 'Venkatesan', 'Summit Athletics', '4410 El Camino Real', 'Suite 12', 'Palo Alto', 'CA', '94301', '408-555-0102');
insert into customer values (0, 'Tomas', 'Lindqvist', 'Harbor Bike & Ski', '310 Oak Grove Ave', null, 'Menlo Park', 'CA', '94025', '408-555-0103');
insert into customer values (0, 'Grace', 'Whitfield', 'Pinecrest Golf', '2201 Stevens Creek', null, 'Cupertino', 'CA', '95014', '408-555-0104');
insert into customer values (0, 'Rafael', 'Soto', 'Castro Street Sports', '140 Castro Street', null, 'Mountain View', 'CA', '94040', '408-555-0105');
insert into customer values (0, 'Helen', 'Nakamura', 'Mission Racquet Club', '3500 Homestead Road', null, 'Santa Clara', 'CA', '95050', '408-555-0106');
insert into customer values (0, 'Ahmed', 'Karimi', 'Foothill Fitness', '95 Main Street', null, 'Los Altos', 'CA', '94022', '408-555-0107');
insert into customer values (0, 'Lucy', 'Brennan', 'Edgewood Runners', '760 Woodside Road', null, 'Redwood City', 'CA', '94061', '408-555-0108');
insert into customer values (0, 'Oscar', 'Delgado', 'Belmont Swim Shop', '1450 Ralston Ave', null, 'Belmont', 'CA', '94002', '408-555-0109');
insert into customer values (0, 'Naomi', 'Fischer', 'Willow Glen Cycles', '1180 Lincoln Ave', null, 'San Jose', 'CA', '95125', '408-555-0110');
insert into customer values (0, 'Samuel', 'Adeyemi', 'Embarcadero Athletic', '1 Market Plaza', 'Floor 3', 'San Francisco', 'CA', '94105', '408-555-0111');
insert into customer values (0, 'Irene', 'Kowalski', 'Haight Street Skate', '1620 Haight Street', null, 'San Francisco', 'CA', '94117', '408-555-0112');
insert into customer values (0, 'Victor', 'Alvarez', 'Lakeshore Sporting', '3300 Lakeshore Ave', null, 'Oakland', 'CA', '94612', '408-555-0113');
insert into customer values (0, 'June', 'Park', 'Rose City Outdoors', '920 SW Sixth Ave', null, 'Portland', 'OR', '97201', '503-555-0114');
insert into customer values (0, 'Elliot', 'Graves', 'Sound Paddle Supply', '1400 Fourth Ave', null, 'Seattle', 'WA', '98101', '206-555-0115');
insert into customer values (0, 'Carmen', 'Ruiz', 'Chelsea Court Sports', '250 W 26th Street', null, 'New York', 'NY', '10001', '212-555-0116');
insert into customer values (0, 'Frank', 'Osei', 'Lincoln Park Ball', '2400 N Clark Street', null, 'Chicago', 'IL', '60614', '312-555-0117');
insert into customer values (0, 'Beth', 'Lindgren', 'Front Range Climb', '1600 Wynkoop Street', null, 'Denver', 'CO', '80202', '303-555-0118');
insert into customer values (0, 'Hector', 'Ibarra', 'Congress Ave Tennis', '600 Congress Ave', null, 'Austin', 'TX', '78701', '512-555-0119');
insert into customer values (0, 'Ruth', 'Bergstrom', 'Desert Sun Golf', '2 N Central Ave', null, 'Phoenix', 'AZ', '85004', '602-555-0120');
insert into customer values (0, 'Kofi', 'Mensah', 'Peachtree Pitch', '1180 Peachtree St', null, 'Atlanta', 'GA', '30309', '404-555-0121');
insert into customer values (0, 'Alice', 'Donovan', 'Common Ground Sport', '45 School Street', null, 'Boston', 'MA', '02108', '617-555-0122');
insert into customer values (0, 'Mateo', 'Herrera', 'Brickell Watersport', '1001 Brickell Bay Dr', null, 'Miami', 'FL', '33131', '305-555-0123');
insert into customer values (0, 'Ingrid', 'Solberg', 'North Loop Hockey', '120 N First Street', null, 'Minneapolis', 'MN', '55401', '612-555-0124');
insert into customer values (0, 'Wes', 'Thornton', 'Woodward Fieldhouse', '1500 Woodward Ave', null, 'Detroit', 'MI', '48226', '313-555-0125');
insert into customer values (0, 'Dana', 'Mercer', 'Gateway Arch Sports', '700 Market Street', null, 'Saint Louis', 'MO', '63101', '314-555-0126');
insert into customer values (0, 'Ken', 'Yamada', 'Seaport Sports & Co', '501 Seaport Court', null, 'Redwood City', 'CA', '94063', '408-555-0127');

{ states }

insert into state values ('AK', 'Alaska');
insert into state values ('AL', 'Alabama');
insert into state values ('AR', 'Arkansas');
insert into state values ('AZ', 'Arizona');
insert into state values ('CA', 'California');
insert into state values ('CO', 'Colorado');
insert into state values ('CT', 'Connecticut');
insert into state values ('DC', 'D.C.');
insert into state values ('DE', 'Delaware');
insert into state values ('FL', 'Florida');
insert into state values ('GA', 'Georgia');
insert into state values ('HI', 'Hawaii');
insert into state values ('IA', 'Iowa');
insert into state values ('ID', 'Idaho');
insert into state values ('IL', 'Illinois');
insert into state values ('IN', 'Indiana');
insert into state values ('KS', 'Kansas');
insert into state values ('KY', 'Kentucky');
insert into state values ('LA', 'Louisiana');
insert into state values ('MA', 'Massachusetts');
insert into state values ('MD', 'Maryland');
insert into state values ('ME', 'Maine');
insert into state values ('MI', 'Michigan');
insert into state values ('MN', 'Minnesota');
insert into state values ('MO', 'Missouri');
insert into state values ('MS', 'Mississippi');
insert into state values ('MT', 'Montana');
insert into state values ('NC', 'North Carolina');
insert into state values ('ND', 'North Dakota');
insert into state values ('NE', 'Nebraska');
insert into state values ('NH', 'New Hampshire');
insert into state values ('NJ', 'New Jersey');
insert into state values ('NM', 'New Mexico');
insert into state values ('NV', 'Nevada');
insert into state values ('NY', 'New York');
insert into state values ('OH', 'Ohio');
insert into state values ('OK', 'Oklahoma');
insert into state values ('OR', 'Oregon');
insert into state values ('PA', 'Pennsylvania');
insert into state values ('PR', 'Puerto Rico');
insert into state values ('RI', 'Rhode Island');
insert into state values ('SC', 'South Carolina');
insert into state values ('SD', 'South Dakota');
insert into state values ('TN', 'Tennessee');
insert into state values ('TX', 'Texas');
insert into state values ('UT', 'Utah');
insert into state values ('VA', 'Virginia');
insert into state values ('VT', 'Vermont');
insert into state values ('WA', 'Washington');
insert into state values ('WI', 'Wisconsin');
insert into state values ('WV', 'West Virginia');
insert into state values ('WY', 'Wyoming');

{ manufacturers: lead_time is an INTERVAL DAY(3) TO DAY }

insert into manufact values ('ACM', 'Acme Athletic', '  5');
insert into manufact values ('BRT', 'Brightline', '  7');
insert into manufact values ('CRV', 'Caravel Sport', '  3');
insert into manufact values ('DLT', 'Delta Gear', ' 14');
insert into manufact values ('EVR', 'Everest Outdoor', ' 10');
insert into manufact values ('FLX', 'Flexion', '  4');
insert into manufact values ('GRD', 'Gridiron Co', '  8');
insert into manufact values ('HLX', 'Helix Cycles', ' 12');
insert into manufact values ('KST', 'Keystone', '  6');

{ stock: one row per product and manufacturer }

insert into stock values (1, 'ACM', 'baseball gloves', 251.50, 'case', '10 gloves/case');
insert into stock values (1, 'GRD', 'baseball gloves', 269.00, 'case', '10 gloves/case');
insert into stock values (1, 'KST', 'baseball gloves', 286.50, 'case', '10 gloves/case');
insert into stock values (2, 'GRD', 'baseball', 129.00, 'case', '24/case');
insert into stock values (3, 'ACM', 'baseball bat', 240.00, 'case', '12/case');
insert into stock values (3, 'KST', 'baseball bat', 256.80, 'case', '12/case');
insert into stock values (4, 'GRD', 'football', 481.50, 'case', '24/case');
insert into stock values (4, 'ACM', 'football', 515.10, 'case', '24/case');
insert into stock values (5, 'BRT', 'tennis racquet', 31.00, 'each', 'each');
insert into stock values (5, 'CRV', 'tennis racquet', 32.96, 'each', 'each');
insert into stock values (5, 'FLX', 'tennis racquet', 34.92, 'each', 'each');
insert into stock values (6, 'BRT', 'tennis ball', 36.00, 'case', '24 cans/case');
insert into stock values (6, 'CRV', 'tennis ball', 38.52, 'case', '24 cans/case');
insert into stock values (7, 'ACM', 'basketball', 601.50, 'case', '24/case');
insert into stock values (8, 'CRV', 'volleyball', 843.00, 'case', '24/case');
insert into stock values (9, 'CRV', 'volleyball net', 20.00, 'each', 'each');
insert into stock values (10, 'HLX', 'bicycle tires', 69.50, 'box', '4/box');
insert into stock values (10, 'EVR', 'bicycle tires', 74.26, 'box', '4/box');
insert into stock values (11, 'HLX', 'bicycle helmet', 113.00, 'case', '4/case');
insert into stock values (11, 'EVR', 'bicycle helmet', 120.70, 'case', '4/case');
insert into stock values (11, 'FLX', 'bicycle helmet', 128.40, 'case', '4/case');
insert into stock values (12, 'FLX', 'running shoes', 97.00, 'each', 'each');
insert into stock values (12, 'BRT', 'running shoes', 103.79, 'each', 'each');
insert into stock values (12, 'EVR', 'running shoes', 110.58, 'each', 'each');
insert into stock values (13, 'CRV', 'swim cap', 61.50, 'box', '12/box');
insert into stock values (14, 'DLT', 'golf balls', 51.00, 'case', '24/case');
insert into stock values (14, 'KST', 'golf balls', 54.36, 'case', '24/case');
insert into stock values (15, 'DLT', 'golf club', 140.00, 'each', 'each');
insert into stock values (16, 'EVR', 'ski poles', 36.50, 'pair', 'pair');
insert into stock values (16, 'DLT', 'ski poles', 38.95, 'pair', 'pair');
insert into stock values (17, 'GRD', 'soccer ball', 183.00, 'case', '12/case');
insert into stock values (17, 'BRT', 'soccer ball', 195.60, 'case', '12/case');
insert into stock values (18, 'KST', 'hockey stick', 42.00, 'each', 'each');
insert into stock values (18, 'GRD', 'hockey stick', 44.94, 'each', 'each');
insert into stock values (19, 'FLX', 'jump rope', 56.50, 'box', '10/box');
insert into stock values (20, 'EVR', 'water bottle', 75.00, 'case', '24/case');
insert into stock values (20, 'HLX', 'water bottle', 80.04, 'case', '24/case');

{ call types }

insert into call_type values ('B', 'billing error');
insert into call_type values ('D', 'damaged goods');
insert into call_type values ('I', 'incorrect merchandise sent');
insert into call_type values ('L', 'late shipment');
insert into call_type values ('O', 'other');

{ orders (SERIAL from 1001) and their items }

insert into orders values (0, '2011-05-07', 104, 'express', 'n', 'B79495', '2011-05-09', 75.85, 27.75, '2011-06-01');
insert into orders values (0, '2011-05-14', 101, 'ring bell twice', 'n', 'B28650', '2011-05-25', 91.13, 32.34, '2011-06-05');
insert into orders values (0, '2011-05-23', 117, 'via UPS', 'y', 'B80548', '2011-05-29', 5.54, 6.66, '2011-06-19');
insert into orders values (0, '2011-05-31', 109, 'back door', 'n', 'B82510', '2011-06-09', 23.62, 12.09, null);
insert into orders values (0, '2011-06-06', 103, 'deliver to loading dock', 'n', 'B82198', '2011-06-11', 49.99, 20.00, '2011-07-03');
insert into orders values (0, '2011-06-14', 106, 'call before delivery', 'n', 'B71257', '2011-06-17', 15.97, 9.79, '2011-06-29');
insert into orders values (0, '2011-06-22', 112, 'ship with next order', 'n', 'B57099', '2011-07-03', 83.52, 30.06, '2011-07-31');
insert into orders values (0, '2011-06-26', 110, 'leave at front desk & sign', 'n', 'B59502', '2011-07-03', 108.55, 37.56, null);
insert into orders values (0, '2011-07-04', 116, 'no weekend deliveries', 'n', 'B30973', '2011-07-11', 100.59, 35.18, '2011-08-10');
insert into orders values (0, '2011-07-08', 119, 'gift wrap', 'y', 'B45845', '2011-07-13', 109.39, 37.82, '2011-08-11');
insert into orders values (0, '2011-07-13', 122, 'express', 'n', 'B83766', '2011-07-15', 15.17, 9.55, '2011-08-03');
insert into orders values (0, '2011-07-21', 106, 'ring bell twice', 'n', 'B51996', '2011-07-28', 46.10, 18.83, null);
insert into orders values (0, '2011-07-25', 127, 'via UPS', 'n', 'B61298', '2011-07-27', 9.79, 7.94, '2011-08-07');
insert into orders values (0, '2011-07-29', 121, 'back door', 'n', 'B11178', '2011-08-03', 93.25, 32.97, '2011-08-23');
insert into orders values (0, '2011-08-02', 124, 'deliver to loading dock', 'n', 'B55068', '2011-08-14', 95.54, 33.66, '2011-09-06');
insert into orders values (0, '2011-08-06', 102, 'call before delivery', 'n', 'B82550', '2011-08-08', 20.32, 11.10, null);
insert into orders values (0, '2011-08-08', 118, 'ship with next order', 'y', 'B27322', '2011-08-15', 20.60, 11.18, '2011-08-26');
insert into orders values (0, '2011-08-17', 105, 'leave at front desk & sign', 'n', 'B50964', '2011-08-19', 51.46, 20.44, '2011-09-14');
insert into orders values (0, '2011-08-23', 111, 'no weekend deliveries', 'n', 'B81030', '2011-08-30', 87.66, 31.30, '2011-09-12');
insert into orders values (0, '2011-08-29', 126, 'gift wrap', 'n', 'B77906', '2011-08-31', 116.31, 39.89, null);
insert into orders values (0, '2011-09-01', 113, 'express', 'n', 'B80301', '2011-09-10', 31.88, 14.56, '2011-09-29');
insert into orders values (0, '2011-09-06', 120, 'ring bell twice', 'n', 'B63652', '2011-09-16', 11.45, 8.43, '2011-09-26');
insert into orders values (0, '2011-09-11', 108, 'via UPS', 'n', 'B82242', '2011-09-18', 42.78, 17.83, '2011-09-27');
insert into items values (1, 1001, 3, 'ACM', 1, 240.00);
insert into items values (2, 1001, 9, 'CRV', 3, 60.00);
insert into items values (1, 1002, 20, 'EVR', 3, 225.00);
insert into items values (2, 1002, 6, 'CRV', 3, 115.56);
insert into items values (3, 1002, 17, 'BRT', 5, 978.00);
insert into items values (1, 1003, 5, 'FLX', 1, 34.92);
insert into items values (2, 1003, 4, 'ACM', 2, 1030.20);
insert into items values (3, 1003, 10, 'EVR', 3, 222.78);
insert into items values (4, 1003, 12, 'FLX', 1, 97.00);
insert into items values (1, 1004, 20, 'HLX', 2, 160.08);
insert into items values (2, 1004, 12, 'BRT', 2, 207.58);
insert into items values (3, 1004, 4, 'GRD', 4, 1926.00);
insert into items values (4, 1004, 14, 'DLT', 2, 102.00);
insert into items values (1, 1005, 5, 'BRT', 4, 124.00);
insert into items values (2, 1005, 7, 'ACM', 4, 2406.00);
insert into items values (1, 1006, 16, 'EVR', 2, 73.00);
insert into items values (2, 1006, 19, 'FLX', 2, 113.00);
insert into items values (3, 1006, 14, 'DLT', 1, 51.00);
insert into items values (1, 1007, 12, 'EVR', 4, 442.32);
insert into items values (1, 1008, 16, 'DLT', 1, 38.95);
insert into items values (2, 1008, 6, 'BRT', 1, 36.00);
insert into items values (3, 1008, 3, 'KST', 4, 1027.20);
insert into items values (1, 1009, 6, 'BRT', 5, 180.00);
insert into items values (2, 1009, 1, 'KST', 4, 1146.00);
insert into items values (3, 1009, 2, 'GRD', 4, 516.00);
insert into items values (4, 1009, 9, 'CRV', 3, 60.00);
insert into items values (1, 1010, 20, 'HLX', 5, 400.20);
insert into items values (1, 1011, 3, 'ACM', 4, 960.00);
insert into items values (2, 1011, 15, 'DLT', 4, 560.00);
insert into items values (1, 1012, 10, 'EVR', 4, 297.04);
insert into items values (2, 1012, 16, 'EVR', 1, 36.50);
insert into items values (1, 1013, 4, 'GRD', 3, 1444.50);
insert into items values (2, 1013, 7, 'ACM', 2, 1203.00);
insert into items values (3, 1013, 6, 'BRT', 3, 108.00);
insert into items values (4, 1013, 4, 'ACM', 2, 1030.20);
insert into items values (1, 1014, 15, 'DLT', 3, 420.00);
insert into items values (2, 1014, 8, 'CRV', 4, 3372.00);
insert into items values (3, 1014, 5, 'FLX', 4, 139.68);
insert into items values (4, 1014, 10, 'EVR', 3, 222.78);
insert into items values (1, 1015, 7, 'ACM', 2, 1203.00);
insert into items values (2, 1015, 20, 'EVR', 3, 225.00);
insert into items values (1, 1016, 13, 'CRV', 4, 246.00);
insert into items values (2, 1016, 1, 'GRD', 2, 538.00);
insert into items values (1, 1017, 18, 'KST', 1, 42.00);
insert into items values (2, 1017, 6, 'BRT', 4, 144.00);
insert into items values (3, 1017, 17, 'BRT', 5, 978.00);
insert into items values (1, 1018, 6, 'BRT', 1, 36.00);
insert into items values (2, 1018, 15, 'DLT', 3, 420.00);
insert into items values (1, 1019, 1, 'GRD', 1, 269.00);
insert into items values (1, 1020, 11, 'HLX', 5, 565.00);
insert into items values (2, 1020, 12, 'EVR', 3, 331.74);
insert into items values (3, 1020, 18, 'KST', 2, 84.00);
insert into items values (4, 1020, 6, 'BRT', 5, 180.00);
insert into items values (1, 1021, 3, 'ACM', 2, 480.00);
insert into items values (1, 1022, 14, 'KST', 5, 271.80);
insert into items values (2, 1022, 10, 'HLX', 4, 278.00);
insert into items values (3, 1022, 12, 'EVR', 4, 442.32);
insert into items values (1, 1023, 14, 'KST', 3, 163.08);
insert into items values (2, 1023, 5, 'FLX', 3, 104.76);

{ customer calls }

insert into cust_calls values (106, '2011-06-12 08:20', 'maryj', 'D', 'Order was received, but two of the cans of tennis balls within the case were empty', '2011-06-12 08:25', 'Authorized credit for two cans to customer, issued apology. Called ACM to report damage.');
insert into cust_calls values (110, '2011-07-07 10:24', 'richc', 'L', 'Order placed one month ago (6/7) not received.', '2011-07-07 10:30', 'Checked with shipping; order sent 6/10. Called carrier, who will trace the package.');
insert into cust_calls values (119, '2011-07-01 15:00', 'richc', 'B', 'Bill does not reflect credit from previous order', '2011-07-02 08:21', 'Spoke with customer; credit applied to the next invoice.');
insert into cust_calls values (121, '2011-07-10 14:05', 'maryj', 'O', 'Customer likes our merchandise. Requests that we stock more types of infant joggers. Will call back to place order.', '2011-07-10 14:06', 'Sent note to marketing group of interest in infant joggers');
insert into cust_calls values (127, '2011-07-31 14:30', 'maryj', 'I', 'Received Helix watches (item # 304) instead of CRV watches', '2011-08-01 09:00', 'Apologized; correct merchandise sent overnight, return label enclosed.');
insert into cust_calls values (116, '2011-11-28 13:34', 'mannyn', 'I', 'Received plain white swim caps (313 CRV) instead of navy with team logo (313 FLX)', '2011-11-28 16:47', 'Shipping found correct case in warehouse and dispatched it.');
insert into cust_calls values (116, '2011-12-21 11:24', 'mannyn', 'I', 'Second complaint from this customer! Received two cases right-handed outfielder gloves (1 ACM) instead of one case lefties.', '2011-12-27 08:19', 'Memo to shipping to send the correct gloves by express.');

{ catalog (SERIAL from 10001): TEXT and BYTE columns, which the PHP services cannot show }

insert into catalog values (0, 1, 'ACM', 'Baseball gloves from Acme Athletic, stock number 1.', null, 'Best baseball gloves for the season!');
insert into catalog values (0, 1, 'GRD', 'Baseball gloves from Gridiron Co, stock number 1.', null, 'Best baseball gloves for the season!');
insert into catalog values (0, 1, 'KST', 'Baseball gloves from Keystone, stock number 1.', null, 'Best baseball gloves for the season!');
insert into catalog values (0, 2, 'GRD', 'Baseball from Gridiron Co, stock number 2.', null, 'Best baseball for the season!');
insert into catalog values (0, 3, 'ACM', 'Baseball bat from Acme Athletic, stock number 3.', null, 'Best baseball bat for the season!');
insert into catalog values (0, 3, 'KST', 'Baseball bat from Keystone, stock number 3.', null, 'Best baseball bat for the season!');
insert into catalog values (0, 4, 'GRD', 'Football from Gridiron Co, stock number 4.', null, 'Best football for the season!');
insert into catalog values (0, 4, 'ACM', 'Football from Acme Athletic, stock number 4.', null, 'Best football for the season!');
insert into catalog values (0, 5, 'BRT', 'Tennis racquet from Brightline, stock number 5.', null, 'Best tennis racquet for the season!');
insert into catalog values (0, 5, 'CRV', 'Tennis racquet from Caravel Sport, stock number 5.', null, 'Best tennis racquet for the season!');
insert into catalog values (0, 5, 'FLX', 'Tennis racquet from Flexion, stock number 5.', null, 'Best tennis racquet for the season!');
insert into catalog values (0, 6, 'BRT', 'Tennis ball from Brightline, stock number 6.', null, 'Best tennis ball for the season!');
insert into catalog values (0, 6, 'CRV', 'Tennis ball from Caravel Sport, stock number 6.', null, 'Best tennis ball for the season!');
insert into catalog values (0, 7, 'ACM', 'Basketball from Acme Athletic, stock number 7.', null, 'Best basketball for the season!');
insert into catalog values (0, 8, 'CRV', 'Volleyball from Caravel Sport, stock number 8.', null, 'Best volleyball for the season!');
insert into catalog values (0, 9, 'CRV', 'Volleyball net from Caravel Sport, stock number 9.', null, 'Best volleyball net for the season!');
insert into catalog values (0, 10, 'HLX', 'Bicycle tires from Helix Cycles, stock number 10.', null, 'Best bicycle tires for the season!');
insert into catalog values (0, 10, 'EVR', 'Bicycle tires from Everest Outdoor, stock number 10.', null, 'Best bicycle tires for the season!');
insert into catalog values (0, 11, 'HLX', 'Bicycle helmet from Helix Cycles, stock number 11.', null, 'Best bicycle helmet for the season!');
insert into catalog values (0, 11, 'EVR', 'Bicycle helmet from Everest Outdoor, stock number 11.', null, 'Best bicycle helmet for the season!');
insert into catalog values (0, 11, 'FLX', 'Bicycle helmet from Flexion, stock number 11.', null, 'Best bicycle helmet for the season!');
insert into catalog values (0, 12, 'FLX', 'Running shoes from Flexion, stock number 12.', null, 'Best running shoes for the season!');
insert into catalog values (0, 12, 'BRT', 'Running shoes from Brightline, stock number 12.', null, 'Best running shoes for the season!');
insert into catalog values (0, 12, 'EVR', 'Running shoes from Everest Outdoor, stock number 12.', null, 'Best running shoes for the season!');
insert into catalog values (0, 13, 'CRV', 'Swim cap from Caravel Sport, stock number 13.', null, 'Best swim cap for the season!');
insert into catalog values (0, 14, 'DLT', 'Golf balls from Delta Gear, stock number 14.', null, 'Best golf balls for the season!');
insert into catalog values (0, 14, 'KST', 'Golf balls from Keystone, stock number 14.', null, 'Best golf balls for the season!');
insert into catalog values (0, 15, 'DLT', 'Golf club from Delta Gear, stock number 15.', null, 'Best golf club for the season!');
insert into catalog values (0, 16, 'EVR', 'Ski poles from Everest Outdoor, stock number 16.', null, 'Best ski poles for the season!');
insert into catalog values (0, 16, 'DLT', 'Ski poles from Delta Gear, stock number 16.', null, 'Best ski poles for the season!');
insert into catalog values (0, 17, 'GRD', 'Soccer ball from Gridiron Co, stock number 17.', null, 'Best soccer ball for the season!');
insert into catalog values (0, 17, 'BRT', 'Soccer ball from Brightline, stock number 17.', null, 'Best soccer ball for the season!');
insert into catalog values (0, 18, 'KST', 'Hockey stick from Keystone, stock number 18.', null, 'Best hockey stick for the season!');
insert into catalog values (0, 18, 'GRD', 'Hockey stick from Gridiron Co, stock number 18.', null, 'Best hockey stick for the season!');
insert into catalog values (0, 19, 'FLX', 'Jump rope from Flexion, stock number 19.', null, 'Best jump rope for the season!');
insert into catalog values (0, 20, 'EVR', 'Water bottle from Everest Outdoor, stock number 20.', null, 'Best water bottle for the season!');
insert into catalog values (0, 20, 'HLX', 'Water bottle from Helix Cycles, stock number 20.', null, 'Best water bottle for the season!');
